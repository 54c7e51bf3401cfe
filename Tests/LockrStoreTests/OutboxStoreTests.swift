import Foundation
import LockrStore
import Testing

/// The adapters' outbox: per backend, oldest first, surviving a reopen, completed one or many at a time.
@Suite struct OutboxStoreTests {
    func store(at path: String) throws -> OutboxStore {
        OutboxStore(sharing: try PolicyStore(path: path))
    }

    @Test func entriesAreKeptPerBackendInOrderAndCompletedWithoutTouchingOthers() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lockr-outbox-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("state.sqlite").path
        let outbox = try store(at: path)
        let start = Date(timeIntervalSince1970: 1_780_300_000)
        for (index, text) in ["a", "b", "c"].enumerated() {
            _ = try outbox.enqueue(Data(text.utf8), for: ["pihole6", "webhook"], at: start + Double(index))
        }
        let webhook = try outbox.pending(for: "webhook")
        #expect(webhook.map { String(decoding: $0.payload, as: UTF8.self) } == ["a", "b", "c"])
        try outbox.noteFailure(webhook[0].id, reason: "unreachable: connection refused")

        // The newest of pihole6's entries supersedes the older ones; the webhook's stay.
        let pihole = try outbox.pending(for: "pihole6")
        try outbox.complete(through: pihole[2].id, for: "pihole6")
        #expect(try outbox.pending(for: "pihole6").isEmpty)

        let reopened = try store(at: path)
        let kept = try reopened.pending(for: "webhook")
        #expect(kept.count == 3 && kept[0].attempts == 1 && kept[0].lastError == "unreachable: connection refused")
        try reopened.complete(kept[0].id)
        #expect(try reopened.pending(for: "webhook").map(\.id) == [kept[1].id, kept[2].id])
    }
}
