import HTTPTypes
import Hummingbird
import LockrAPI
import LockrControl
import LockrPolicy
import PlainText

/// The admin view's pages and forms for people's own filters, safe search, the lists given by URL
/// and the home's own names (see the table in WebRouter+Admin.swift). Every filter change goes
/// through the person's policy as `lockr filters` does: what loosens costs their gate and waits.
/// Local records change at once, as `lockr records` does (none frees a name a filter holds).
extension WebRouter {
    static func addFilterRoutes(
        to admin: RouterGroup<ControlRequestContext>, sessions: AdminSessions, policy: some PolicyAccess, pages: Pages
    ) {
        admin.post("people/:person/filters") { request, context in
            try await change(FilterForm.self, request, context, sessions: sessions, policy: policy, pages: pages) {
                form, person in
                guard let match = AdminFilters.Match(rawValue: form.match ?? "domain") else {
                    throw Components.Schemas.ErrorBody(error: "no such match: \(form.match ?? "")", code: .badRequest)
                }
                try changeFilters(
                    .init(
                        change: .add, kind: .init(rawValue: form.kind), value: match.rule(form.value),
                        comment: form.comment),
                    phrase: form.phrase, for: person, policy: policy)
            }
        }
        admin.post("people/:person/filters/remove") { request, context in
            try await change(EntryForm.self, request, context, sessions: sessions, policy: policy, pages: pages) {
                form, person in
                let parts = form.entry.split(separator: " ", maxSplits: 1).map(String.init)
                try changeFilters(
                    .init(
                        change: .remove, kind: parts.first.flatMap(Components.Schemas.FilterKind.init(rawValue:)),
                        value: parts.count == 2 ? parts[1] : nil),
                    phrase: form.phrase, for: person, policy: policy)
            }
        }
        admin.post("people/:person/safe-search") { request, context in
            try await change(SafeSearchForm.self, request, context, sessions: sessions, policy: policy, pages: pages) {
                form, person in
                try changeFilters(
                    .init(
                        change: .safeSearch, safeSearch: form.search == "on",
                        youtube: form.youtube.flatMap { .init(rawValue: $0) }),
                    phrase: form.phrase, for: person, policy: policy)
            }
        }
        admin.get("lists") { request, _ in
            guard sessions.isSignedIn(request) else { return toSignIn }
            return listsPage(
                AdminListsPage(await policy.lists(), people: policy.peopleNames(), csrf: FormToken(request).value),
                pages: pages)
        }
        admin.post("lists") { request, _ in
            guard sessions.isSignedIn(request) else { return toSignIn }
            let form = try await FormToken.checked(ListForm.self, from: request)
            do {
                let person = try known(form.person, policy)
                try changeFilters(
                    .init(
                        change: .add, kind: .init(rawValue: form.kind), value: form.url, comment: form.comment),
                    phrase: form.phrase, for: person, policy: policy)
            } catch {
                let (status, said) = try refusal(error)
                return listsPage(
                    AdminListsPage(await policy.lists(), people: policy.peopleNames(), csrf: form.csrf, error: said),
                    pages: pages, status: status)
            }
            return Response(status: .seeOther, headers: [.location: "/admin/lists"])
        }
        admin.post("lists/refresh") { request, _ in
            guard sessions.isSignedIn(request) else { return toSignIn }
            let form = try await FormToken.checked(RefreshForm.self, from: request)
            do throws(ControlFailure) {
                _ = try await policy.updateLists(named: form.name.flatMap { $0.isEmpty ? nil : $0 })
            } catch {
                let (status, body) = error.response
                return listsPage(
                    AdminListsPage(
                        await policy.lists(), people: policy.peopleNames(), csrf: form.csrf, error: body.error),
                    pages: pages, status: HTTPResponse.Status(code: status))
            }
            return Response(status: .seeOther, headers: [.location: "/admin/lists"])
        }
    }

    /// The home's own names: listed, added and removed.
    static func addNameRoutes(
        to admin: RouterGroup<ControlRequestContext>, sessions: AdminSessions, policy: some PolicyAccess, pages: Pages
    ) {
        admin.get("names") { request, _ in
            guard sessions.isSignedIn(request) else { return toSignIn }
            return namesPage(AdminNamesPage(policy.localRecords(), csrf: FormToken(request).value), pages: pages)
        }
        admin.post("names") { request, _ in
            guard sessions.isSignedIn(request) else { return toSignIn }
            let form = try await FormToken.checked(RecordForm.self, from: request)
            let line = [form.name, form.type, form.data].map(\.trimmed)
                .joined(separator: " ")
            return try changeRecords(
                .init(change: .add, record: line, comment: form.comment), csrf: form.csrf, policy: policy, pages: pages)
        }
        admin.post("names/remove") { request, _ in
            guard sessions.isSignedIn(request) else { return toSignIn }
            let form = try await FormToken.checked(RecordRemovalForm.self, from: request)
            return try changeRecords(
                .init(change: .remove, record: form.record), csrf: form.csrf, policy: policy, pages: pages)
        }
    }

    private static func changeRecords(
        _ body: Components.Schemas.LocalRecordChangeRequest, csrf: String, policy: some PolicyAccess, pages: Pages
    ) throws -> Response {
        do {
            let (record, comment) = try ControlRouter.localRecordChange(body)
            _ = try policy.changeLocalRecords(record, comment: comment, remove: body.change == .remove)
        } catch {
            let (status, said) = try refusal(error)
            return namesPage(
                AdminNamesPage(policy.localRecords(), csrf: csrf, error: said), pages: pages, status: status)
        }
        return Response(status: .seeOther, headers: [.location: "/admin/names"])
    }

    private static func namesPage(
        _ page: AdminNamesPage, pages: Pages, status: HTTPResponse.Status = .ok
    ) -> Response {
        pages.html("admin-names", ["title": "Names", "page": page, "still": true], status: status)
    }

    /// Checks `body` as the API does and asks for it for `person`, the session standing for the PIN.
    private static func changeFilters(
        _ body: Components.Schemas.FilterChangeRequest, phrase: String?, for person: String, policy: some PolicyAccess
    ) throws {
        _ = try policy.perform(
            .changeFilters(try ControlRouter.filterChange(body)),
            Credentials(phrase: phrase.flatMap { $0.isEmpty ? nil : $0 }, pin: .verified), for: person)
    }

    private static func listsPage(
        _ page: AdminListsPage, pages: Pages, status: HTTPResponse.Status = .ok
    ) -> Response {
        pages.html("admin-lists", ["title": "Lists", "page": page, "still": true], status: status)
    }
}

/// `POST /admin/people/{person}/filters`: `match` says how `value` covers names.
struct FilterForm: Decodable, FormWithToken {
    let kind: String
    let match: String?
    let value: String
    let comment: String?
    let phrase: String?
    let csrf: String
}

/// `POST /admin/people/{person}/filters/remove`: `entry` is "KIND VALUE".
struct EntryForm: Decodable, FormWithToken {
    let entry: String
    let phrase: String?
    let csrf: String
}

/// `POST /admin/people/{person}/safe-search`: `search` is "on" when ticked.
struct SafeSearchForm: Decodable, FormWithToken {
    let search: String?
    let youtube: String?
    let phrase: String?
    let csrf: String
}

/// `POST /admin/lists`.
struct ListForm: Decodable, FormWithToken {
    let person: String
    let kind: String
    let url: String
    let comment: String?
    let phrase: String?
    let csrf: String
}

/// `POST /admin/names`: the record's parts.
struct RecordForm: Decodable, FormWithToken {
    let name: String
    let type: String
    let data: String
    let comment: String?
    let csrf: String
}

/// `POST /admin/names/remove`.
struct RecordRemovalForm: Decodable, FormWithToken {
    let record: String
    let csrf: String
}

/// `POST /admin/lists/refresh`.
struct RefreshForm: Decodable, FormWithToken {
    let name: String?
    let csrf: String
}
