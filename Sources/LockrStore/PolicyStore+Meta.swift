import Foundation
import LockrPolicy

/// How a person's policy state is kept in the `meta` table: the settings changed at run time,
/// the protection in force, the changes waiting and the metering, each under its key, as text or
/// JSON.
extension PolicyStore {
    static func json(_ value: some Encodable) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }

    static func decoded<T: Decodable>(_ text: String?, as: T.Type) -> T? {
        text.flatMap { try? JSONDecoder().decode(T.self, from: Data($0.utf8)) }
    }

    /// The protection in force, pending and declined changes, kept as JSON.
    static func writeChanges(of state: PolicyState, into meta: inout [String: String]) throws {
        let encoder = JSONEncoder()
        if let inForce = state.inForce {
            meta["in_force"] = String(decoding: try encoder.encode(inForce), as: UTF8.self)
        }
        meta["pending"] = String(decoding: try encoder.encode(state.changes.pending), as: UTF8.self)
        meta["declined"] = String(decoding: try encoder.encode(state.changes.declined), as: UTF8.self)
        meta["next_change_id"] = String(state.changes.nextID)
        if let pin = state.pin { meta["pin"] = String(decoding: try encoder.encode(pin), as: UTF8.self) }
        if !state.overlay.schedulesAdded.isEmpty {
            meta["schedules_added"] = String(decoding: try encoder.encode(state.overlay.schedulesAdded), as: UTF8.self)
        }
        if let gate = state.overlay.gate {
            meta["gate_set"] = String(decoding: try encoder.encode(gate), as: UTF8.self)
        }
        if let safeSearch = state.overlay.safeSearch {
            meta["safe_search_set"] = String(decoding: try encoder.encode(safeSearch), as: UTF8.self)
        }
        if let filters = state.overlay.filters {
            meta["filters_set"] = String(decoding: try encoder.encode(filters), as: UTF8.self)
        }
        if !state.profiles.made.isEmpty {
            meta["profiles"] = String(decoding: try encoder.encode(state.profiles.made), as: UTF8.self)
        }
        if !state.profiles.active.isEmpty {
            meta["active_profiles"] = String(decoding: try encoder.encode(state.profiles.active), as: UTF8.self)
        }
        if state.gate != GateState() { meta["gate"] = String(decoding: try encoder.encode(state.gate), as: UTF8.self) }
        if !state.claimedDevices.isEmpty { meta["claimed_devices"] = state.claimedDevices.joined(separator: ",") }
    }

    static func readChanges(from meta: [String: String], into state: inout PolicyState) {
        let decoder = JSONDecoder()
        func decode<T: Decodable>(_ key: String, as type: T.Type) -> T? {
            meta[key].flatMap { try? decoder.decode(T.self, from: Data($0.utf8)) }
        }
        state.inForce = decode("in_force", as: Protection.self)
        state.changes = ChangeQueue(
            pending: decode("pending", as: [PendingChange].self) ?? [],
            declined: decode("declined", as: [String: String].self) ?? [:],
            nextID: meta["next_change_id"].flatMap(Int.init) ?? 1)
        state.pin = decode("pin", as: PinRecord.self)
        state.overlay.schedulesAdded = decode("schedules_added", as: [Schedule].self) ?? []
        state.overlay.gate = decode("gate_set", as: GateSettings.self)
        state.overlay.safeSearch = decode("safe_search_set", as: SafeSearch.self)
        state.overlay.filters = decode("filters_set", as: [FilterEntry].self)
        state.profiles = Profiles(
            made: decode("profiles", as: [Profile].self) ?? [],
            active: decode("active_profiles", as: [ActiveProfile].self) ?? [])
        state.gate = decode("gate", as: GateState.self) ?? GateState()
        state.claimedDevices = meta["claimed_devices"]?.split(separator: ",").map(String.init) ?? []
    }

    /// The exact metering state, when one was saved; else buckets that hold the day's totals
    /// (a store an older lockr wrote). Slice lengths are the engine's to check.
    static func metering(from meta: [String: String], today: DayRecord) -> MeteringState {
        if let text = meta["metering"],
            let state = try? JSONDecoder().decode(MeteringState.self, from: Data(text.utf8))
        {
            return state
        }
        return MeteringState(used: today.used, charged: today.charged, slice: MeteringSettings.defaults.slice)
    }

    static func meta(from overlay: SettingsOverlay) -> [String: String] {
        var meta: [String: String] = [:]
        if let mode = overlay.mode { meta["mode"] = mode.rawValue }
        if let budget = overlay.budget { meta["budget_ms"] = String(budget.milliseconds) }
        if let perApp = overlay.perApp { meta["per_app"] = perApp ? "1" : "0" }
        if let window = overlay.hourlyWindow { meta["hourly_window_ms"] = String(window.milliseconds) }
        if let window = overlay.extremeWindow { meta["extreme_window_ms"] = String(window.milliseconds) }
        if !overlay.guardAdded.isEmpty { meta["guard_added"] = overlay.guardAdded.joined(separator: ",") }
        if !overlay.guardRemoved.isEmpty { meta["guard_removed"] = overlay.guardRemoved.joined(separator: ",") }
        if !overlay.schedulesRemoved.isEmpty {
            meta["schedules_removed"] = overlay.schedulesRemoved.joined(separator: ",")
        }
        return meta
    }

    static func overlay(from meta: [String: String]) -> SettingsOverlay {
        func duration(_ key: String) -> Duration? { meta[key].flatMap(Int64.init).map { .milliseconds($0) } }
        func list(_ key: String) -> [String] { meta[key]?.split(separator: ",").map(String.init) ?? [] }
        var overlay = SettingsOverlay()
        overlay.mode = meta["mode"].flatMap(Mode.init(rawValue:))
        overlay.budget = duration("budget_ms")
        overlay.perApp = meta["per_app"].map { $0 == "1" }
        overlay.hourlyWindow = duration("hourly_window_ms")
        overlay.extremeWindow = duration("extreme_window_ms")
        overlay.guardAdded = list("guard_added")
        overlay.guardRemoved = list("guard_removed")
        overlay.schedulesRemoved = list("schedules_removed")
        return overlay
    }
}
