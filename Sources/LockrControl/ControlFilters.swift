import DNSFilter
import LockrAPI
import LockrLists
import LockrPolicy
import PlainText

/// The answers about a person's own filter and safe search, as the API and the web pages give them.
extension ControlRouter {
    /// The longest comment an entry keeps.
    public static let longestComment = 200

    /// The change a request describes, checked: a rule must be one line a list could hold, a list
    /// an `http://` or `https://` URL; an `ErrorBody` says what is wrong.
    public static func filterChange(
        _ body: Components.Schemas.FilterChangeRequest
    ) throws(Components.Schemas.ErrorBody) -> FilterChange {
        switch body.change {
        case .safeSearch:
            guard let searchEngines = body.safeSearch else {
                throw Components.Schemas.ErrorBody(error: "safe_search: true or false is required", code: .badRequest)
            }
            return .safeSearch(
                SafeSearch(
                    searchEngines: searchEngines,
                    youtube: body.youtube.flatMap { SafeSearch.YouTube(rawValue: $0.rawValue) }))
        case .add, .remove:
            guard let kind = body.kind.flatMap({ FilterEntry.Kind(rawValue: $0.rawValue) }) else {
                throw Components.Schemas.ErrorBody(
                    error: "kind: deny, allow, blocklist or allowlist is required", code: .badRequest)
            }
            guard body.change == .add else {
                // What is there is removed as it is written, whatever the syntax of the day.
                let value = (body.value ?? "").trimmed
                guard !value.isEmpty else {
                    throw Components.Schemas.ErrorBody(error: "value is required", code: .badRequest)
                }
                return .remove(kind, value: value)
            }
            let value = try checked(body.value ?? "", kind: kind)
            let comment = (body.comment ?? "").trimmed
            guard comment.count <= longestComment, !comment.contains(where: \.isNewline) else {
                throw Components.Schemas.ErrorBody(
                    error: "comment: one line of at most \(longestComment) characters", code: .badRequest)
            }
            return .add(FilterEntry(kind, value, comment: comment))
        }
    }

    /// The record and comment a local-record request names, trimmed and checked for length (the
    /// daemon checks the record itself).
    public static func localRecordChange(
        _ body: Components.Schemas.LocalRecordChangeRequest
    ) throws(Components.Schemas.ErrorBody) -> (record: String, comment: String) {
        let record = body.record.trimmed
        guard !record.isEmpty, !record.contains(where: \.isNewline) else {
            throw Components.Schemas.ErrorBody(error: "record: one line, NAME TYPE DATA", code: .badRequest)
        }
        let comment = (body.comment ?? "").trimmed
        guard comment.count <= longestComment, !comment.contains(where: \.isNewline) else {
            throw Components.Schemas.ErrorBody(
                error: "comment: one line of at most \(longestComment) characters", code: .badRequest)
        }
        return (record, comment)
    }

    /// `value` trimmed, when it is a rule (deny, allow) or a list's URL (blocklist, allowlist).
    private static func checked(_ value: String, kind: FilterEntry.Kind) throws(Components.Schemas.ErrorBody) -> String
    {
        let value = value.trimmed
        guard !value.isEmpty else { throw Components.Schemas.ErrorBody(error: "value is required", code: .badRequest) }
        guard kind.isList else {
            if let problem = RuleListParser.problem(inRule: value) {
                throw Components.Schemas.ErrorBody(error: "\(kind.rawValue) '\(value)': \(problem)", code: .badRequest)
            }
            return value
        }
        let source: ListSource
        do { source = try ListSource(entry: value) } catch {
            throw Components.Schemas.ErrorBody(error: "\(kind.rawValue): \(error)", code: .badRequest)
        }
        guard case .url = source else {
            throw Components.Schemas.ErrorBody(
                error: "\(kind.rawValue) '\(value)': an http:// or https:// URL (files are the config file's)",
                code: .badRequest)
        }
        return value
    }

    /// The person's own filter and safe search in force, and the change just made, if any.
    public static func filtersResponse(
        _ view: PolicyView, change: ChangeOutcome? = nil
    ) -> Components.Schemas.FiltersResponse {
        let names = view.policy.inForceNames
        return Components.Schemas.FiltersResponse(
            entries: names.filters.map { entry in
                Components.Schemas.FilterEntryBody(
                    kind: Components.Schemas.FilterKind(rawValue: entry.kind.rawValue)!, value: entry.value,
                    comment: entry.comment)
            },
            safeSearch: names.safeSearch.searchEngines,
            youtube: Components.Schemas.FiltersResponse.YoutubePayload(
                rawValue: names.safeSearch.youtubeLevel.rawValue)!,
            change: change.map { Components.Schemas.ChangeBody($0, now: view.now, calendar: view.calendar) })
    }
}

extension ControlAPI {
    func getFilters(_ input: Operations.GetFilters.Input) async throws -> Operations.GetFilters.Output {
        .ok(.init(body: .json(ControlRouter.filtersResponse(policy.view(of: try person(input.query.person))))))
    }

    func changeFilters(_ input: Operations.ChangeFilters.Input) async throws -> Operations.ChangeFilters.Output {
        guard case .json(let body) = input.body else { preconditionFailure("one content type") }
        let change = try ControlRouter.filterChange(body)
        let pinCheck = try pin(input.headers.xLockrPIN)
        let changed = try policy.perform(
            .changeFilters(change), Credentials(phrase: body.phrase, pin: pinCheck), for: try person(input.query.person)
        )
        return .ok(.init(body: .json(ControlRouter.filtersResponse(changed.view, change: changed.result.change))))
    }
}
