import ConfigKit
import DNSWire

/// The home's own names (`[local]`): records written out, and files read like /etc/hosts.
public struct LocalSettings: Sendable, Equatable {
    /// Records as `"NAME [TTL] TYPE DATA"` (see `LocalRecord`), each checked when read.
    public var records: [String] = []
    /// Files read like /etc/hosts, at start and on every reload.
    public var hostsFiles: [String] = []
    /// TTL of a record that gives none, and of the NODATA answers, seconds.
    public var ttl = 300

    public init() {}

    /// Every setting at its default.
    public static let defaults = LocalSettings()

    /// The records written out, each read (those `records` checked already).
    public var parsedRecords: [LocalRecord] { records.compactMap { try? LocalRecord($0) } }
}

extension LocalSettings: ConfigSection {
    public static let settings: [Setting<LocalSettings>] = [
        Setting(
            "records", \.records,
            "The home's own records, \"NAME [TTL] TYPE DATA\": A, AAAA, CNAME (to a name of these records or the hosts files), PTR and TXT, as \"nas.home.arpa A 192.168.1.5\". Answered with authority, NODATA for another type, never forwarded.",
            read: { reader, key in
                guard let list = reader.strings(key) else { return nil }
                return list.filter { text in
                    do throws(LocalRecordError) {
                        _ = try LocalRecord(text)
                        return true
                    } catch {
                        reader.problem(key, error.description)
                        return false
                    }
                }
            },
            write: { "[" + $0.map(quotedConfigString).joined(separator: ", ") + "]" }),
        Setting(
            "hosts-files", \.hostsFiles,
            "Files read like /etc/hosts (ADDRESS NAME [ALIAS ...]): each name gets its address, the address its first name (PTR). Read at start and on every reload.",
            read: { $0.strings($1) }, write: { "[" + $0.map(quotedConfigString).joined(separator: ", ") + "]" }),
        .integer(
            "ttl", \.ttl, in: 0...86_400, "TTL of a record that gives none, and of NODATA answers, seconds ({range})."),
    ]
}
