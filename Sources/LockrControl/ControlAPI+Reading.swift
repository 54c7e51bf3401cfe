import LockrAPI
import LockrPolicy

/// What the household did (stats) and what lockr would do with a name (explain).
extension ControlAPI {
    /// `GET stats?person=P&day=DATE` or `&days=N` (the last N days, today's included; 1 by default):
    /// each person's days (everyone's unless named) and their streaks as of today.
    func getStats(_ input: Operations.GetStats.Input) async throws -> Operations.GetStats.Output {
        let people = try people(input.query.person)
        let day = input.query.day
        if let day, day.wholeMatch(of: /\d{4}-\d{2}-\d{2}/) == nil {
            throw Components.Schemas.ErrorBody(error: "'day' must be a date such as 2026-03-27", code: .badRequest)
        }
        let count = input.query.days ?? 1
        guard (1...Self.longestStatsRange).contains(count) else {
            throw Components.Schemas.ErrorBody(
                error: "'days' must be from 1 to \(Self.longestStatsRange)", code: .badRequest)
        }
        let stats = try people.map { try ControlRouter.stats(of: $0, day: day, count: count, policy: policy) }
        return .ok(.init(body: .json(.init(people: stats))))
    }

    /// `GET explain?name=N&type=AAAA&person=P` or `&client=IP`: what lockr would answer now and why.
    func explain(_ input: Operations.Explain.Input) async throws -> Operations.Explain.Output {
        let query = input.query
        guard !query.name.isEmpty else {
            throw Components.Schemas.ErrorBody(error: "'name' is needed: the name to explain", code: .badRequest)
        }
        if query.client != nil, query.person != nil {
            throw Components.Schemas.ErrorBody(error: "give 'person' or 'client', not both", code: .badRequest)
        }
        let person = query.client == nil ? try person(query.person) : People.defaultName
        let body = try policy.explain(name: query.name, type: query._type ?? "A", person: person, client: query.client)
        return .ok(.init(body: .json(body)))
    }
}
