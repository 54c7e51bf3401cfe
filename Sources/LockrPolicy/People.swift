/// The people of a household, by name.
public enum People {
    /// The person of every device that matches no configured person; their policy is the
    /// configuration's top level.
    public static let defaultName = "default"

    /// Why `name` cannot name a person, or nil when it can: letters, digits, - and _, up to 32.
    public static func problem(with name: String) -> String? {
        guard !name.isEmpty, name.count <= 32,
            name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        else { return "a person's name is 1 to 32 letters, digits, - and _, not '\(name)'" }
        return nil
    }
}

/// An event of the log, with the person whose it is.
public struct LoggedEvent: Sendable, Equatable {
    public let person: String
    public let event: PolicyEvent

    public init(person: String, event: PolicyEvent) {
        self.person = person
        self.event = event
    }
}
