import DNSFilter
import Foundation

/// The shapes of Pi-hole v6's API that lockr reads and writes (domains.yaml, groups.yaml,
/// clients.yaml, auth.yaml, queries.yaml of its OpenAPI description).
extension PiHole6Backend {
    /// A listing that a 404 means is empty.
    protocol EmptyListing { static var empty: Self { get } }

    struct EntryKey: Hashable {
        let kind: String
        let domain: String
    }

    /// New entries added in one call: of one app and kind, for the same groups.
    struct MissingBatch: Hashable {
        let app: String
        let kind: String
        let groups: [Int]
    }

    struct DomainEntry: Decodable {
        let domain: String
        let kind: String
        let comment: String?
        let groups: [Int]
        let enabled: Bool
        var key: EntryKey { EntryKey(kind: kind, domain: domain) }
    }

    struct DomainList: Decodable, EmptyListing {
        struct Processed: Decodable {
            struct Item: Decodable {
                let item: String?
                let error: String?
            }
            let success: [Item]?
            let errors: [Item]?
        }
        let domains: [DomainEntry]
        let processed: Processed?
        static var empty: DomainList { DomainList(domains: [], processed: nil) }
    }

    struct NewDomains: Encodable {
        let domain: [String]
        let comment: String
        let groups: [Int]
        var enabled = true
    }

    struct DomainUpdate: Encodable {
        var type = "deny"
        var kind = "regex"
        let comment: String
        let groups: [Int]
        let enabled: Bool
    }

    struct BatchItem: Encodable {
        let item: String
        let type: String
        let kind: String
    }

    struct GroupList: Decodable, EmptyListing {
        struct Group: Decodable {
            let name: String
            let id: Int
            let comment: String?
            let enabled: Bool?
        }
        let groups: [Group]
        static var empty: GroupList { GroupList(groups: []) }
    }

    struct NewGroup: Encodable {
        let name: String
        let comment: String
        let enabled: Bool
    }

    struct ClientList: Decodable, EmptyListing {
        struct Client: Decodable {
            let client: String
            let comment: String?
            let groups: [Int]
        }
        let clients: [Client]
        static var empty: ClientList { ClientList(clients: []) }
    }

    struct NewClient: Encodable {
        let client: String
        let comment: String
        let groups: [Int]
    }

    struct ClientUpdate: Encodable {
        let comment: String?
        let groups: [Int]
    }

    struct BlockingReply: Decodable {
        /// enabled, disabled, failed or unknown.
        let blocking: String
        /// Seconds until the setting flips back, when a timer runs.
        let timer: Double?
    }

    /// Whether a user's allow entry lets through a name one of lockr's rules blocks.
    enum AllowCoverage {
        static func covers(_ entry: DomainEntry, _ rule: DomainRule) -> Bool {
            if entry.kind == "regex" {
                guard let allow = try? PosixRegex(entry.domain) else { return false }
                return examples(of: rule).contains { allow.matches($0) }
            }
            let name = entry.domain.lowercased()
            switch rule {
            case .domain(let domain): return name == domain || name.hasSuffix("." + domain)
            case .subdomains(let domain): return name.hasSuffix("." + domain)
            case .regex(let pattern): return (try? PosixRegex(pattern))?.matches(name) ?? false
            }
        }

        /// Names a rule blocks, to try an allow regex on.
        private static func examples(of rule: DomainRule) -> [String] {
            switch rule {
            case .domain(let domain): [domain, "www." + domain]
            case .subdomains(let domain): ["www." + domain]
            case .regex: []
            }
        }
    }

    struct SessionReply: Decodable {
        struct Session: Decodable {
            let valid: Bool
            let sid: String?
        }
        let session: Session
    }

    struct ErrorReply: Decodable {
        struct Body: Decodable {
            let key: String?
            let message: String?
            let hint: String?
        }
        let error: Body
    }

    struct QueryList: Decodable {
        struct Query: Decodable {
            struct Client: Decodable { let ip: String? }
            let time: Double
            let domain: String
            let client: Client?
        }
        let queries: [Query]
    }
}
