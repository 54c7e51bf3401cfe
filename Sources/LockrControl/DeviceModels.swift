import LockrPolicy

// The control API's devices, backends and the app catalogue.

/// Whether a device still asks lockr.
public enum DeviceState: String, Codable, Sendable, CaseIterable {
    case ok
    /// It stopped asking lockr but is still on the network.
    case protectionOff = "protection_off"
    /// It stopped asking, and lockr cannot tell whether it is still around.
    case notSeen = "not_seen"
}

/// A device that asked lockr, and whose it is.
public struct DeviceBody: Codable, Sendable, Equatable {
    public let person: String
    public let address: String
    public let mac: String?
    /// How lockr knew whose it is: forwarded-mac, forwarded-subnet, neighbour-table, source-address.
    public let identifiedBy: String
    /// When it last asked (`in_seconds` is negative: in the past).
    public let lastSeen: TimeBody
    /// Whether it still asks lockr.
    public let state: DeviceState
    /// What the state means, for people.
    public let note: String?
    /// Whether the config file gives it its person (a `devices` entry): changed there, not by an
    /// assignment.
    public var fromConfig = false

    public init(
        person: String, address: String, mac: String?, identifiedBy: String, lastSeen: TimeBody, state: DeviceState,
        note: String?
    ) {
        self.person = person
        self.address = address
        self.mac = mac
        self.identifiedBy = identifiedBy
        self.lastSeen = lastSeen
        self.state = state
        self.note = note
    }
}

/// `GET devices`: every device seen lately.
public struct DevicesResponse: Codable, Sendable, Equatable {
    public let devices: [DeviceBody]
}

/// How one backend (Pi-hole, AdGuard Home, NextDNS, webhook) is doing.
public struct BackendBody: Codable, Sendable, Equatable {
    public let name: String
    /// ok, not_enforcing (reachable and in sync, but the backend's own switches keep lockr's blocks
    /// from working: see `not_enforcing`), failing or starting.
    public let state: String
    /// Changes queued and not delivered yet.
    public let pending: Int
    /// Age of the oldest undelivered change, in seconds (0 when in sync).
    public let lagSeconds: Int64
    public let lastSuccess: String?
    public let lastError: String?
    public let retryInSeconds: Int64?
    /// Entries rewritten because the backend had drifted (deleted or edited by hand).
    public let repairs: Int
    /// What was left alone, and why.
    public let notes: [String]
    /// Why lockr's blocks are not in force, each a sentence (empty when they are).
    public let notEnforcing: [String]
    /// Whether usage is metered from this backend's query log, and why it could not be read last.
    public let metering: Bool
    public let logError: String?

    public init(
        name: String, state: String, pending: Int, lagSeconds: Int64, lastSuccess: String?, lastError: String?,
        retryInSeconds: Int64?, repairs: Int, notes: [String], notEnforcing: [String] = [], metering: Bool,
        logError: String?
    ) {
        self.name = name
        self.state = state
        self.pending = pending
        self.lagSeconds = lagSeconds
        self.lastSuccess = lastSuccess
        self.lastError = lastError
        self.retryInSeconds = retryInSeconds
        self.repairs = repairs
        self.notes = notes
        self.notEnforcing = notEnforcing
        self.metering = metering
        self.logError = logError
    }
}

/// One app lockr knows (`GET apps`).
public struct CatalogueAppBody: Codable, Sendable, Equatable {
    public let id: String
    public let name: String
    public let group: String
    public let guarded: Bool
}

public struct AppsResponse: Codable, Sendable, Equatable {
    public let apps: [CatalogueAppBody]
    public init(apps: [CatalogueAppBody]) { self.apps = apps }
}
