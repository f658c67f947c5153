// SPDX-License-Identifier: Apache-2.0
/// The history's schema, one migration per version (`PRAGMA user_version`). A migration
/// runs in its own transaction with the version bump, so a database is always at one
/// version, never between two. Never edit a shipped migration: append one.
enum Schema {
    static let migrations: [String] = [
        // 1: the calls table and the recents index.
        """
        CREATE TABLE calls (
            id TEXT PRIMARY KEY NOT NULL,
            handle_kind INTEGER,
            handle TEXT,
            name TEXT,
            outgoing INTEGER NOT NULL,
            started REAL NOT NULL,
            connected REAL,
            ended REAL,
            duration REAL NOT NULL DEFAULT 0,
            ended_reason INTEGER,
            missed INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX calls_by_start ON calls (started DESC);
        """,
        // 2: video calls; indexes for the by-handle and missed queries.
        """
        ALTER TABLE calls ADD COLUMN video INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX calls_by_handle ON calls (handle, started DESC);
        CREATE INDEX calls_missed ON calls (started DESC) WHERE missed = 1;
        """,
    ]

    /// The newest version.
    static var current: Int { migrations.count }

    /// Brings `connection` from its version to `target`.
    /// - Throws: `newerSchema` when the database is past what this library knows.
    static func migrate(_ connection: SQLiteConnection, to target: Int = current) throws(CallHistoryError) {
        let found = try connection.integer("PRAGMA user_version")
        guard found <= current else { throw .newerSchema(found: found, supported: current) }
        guard found < target else { return }
        for version in (found + 1)...target {
            try connection.transaction { () throws(CallHistoryError) in
                try connection.execute(migrations[version - 1])
                try connection.execute("PRAGMA user_version = \(version)")
            }
        }
    }
}
