import Foundation
import LockrAPI
import LockrLists

// The control API's lists given by URL (`lockr lists`).

extension Components.Schemas.ListBody {
    /// `status` as the API shows it, with what the config does with the list; a refresh that is due
    /// shows as `now`.
    public init(_ status: ListStatus, roles: RolesPayload, shared: Bool, people: [String], now: Date = Date()) {
        self.init(
            name: status.name, roles: roles, shared: shared, people: people, rules: status.record.rules,
            bytes: status.record.bytes, kept: status.kept, checked: status.record.checked,
            changed: status.record.changed, next: max(status.next, now), lastError: status.record.lastError,
            failures: status.record.failures, fetching: status.fetching)
    }
}
