/// Module Transport.
