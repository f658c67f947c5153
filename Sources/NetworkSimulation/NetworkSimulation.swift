// SPDX-License-Identifier: Apache-2.0
/// # NetworkSimulation
///
/// Seeded network impairments for tests and benchmarks: ``NetworkProfile`` (the ITU-T G.1050
/// core classes A–H plus Wi-Fi/LTE-style bursty loss, delay spikes and clock drift),
/// ``NetworkSimulator`` that turns a profile into a ``NetworkTrace`` (the send and arrival
/// time of every packet), its parts ``GilbertElliottLoss`` and ``ParetoJitter``, and the CSV
/// form of traces. Pure computation: no sockets, no clocks. Kept out of `Transport` so that
/// what a softphone ships does not carry the simulator.
enum NetworkSimulationModule {}
