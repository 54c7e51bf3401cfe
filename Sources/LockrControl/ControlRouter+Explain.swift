import Hummingbird
import LockrAPI
import LockrPolicy

extension ControlRouter {
    /// `GET explain?name=N&type=AAAA&person=P` or `&client=IP`: what lockr would answer now and why.
    static func addExplainRoute(to api: RouterGroup<ControlRequestContext>, policy: some PolicyAccess) {
        api.get("explain") { request, context in
            try await respond {
                let parameters = request.uri.queryParameters
                guard let name = parameters["name"].map(String.init), !name.isEmpty else {
                    throw Components.Schemas.ErrorBody(
                        error: "'name' is needed: the name to explain", code: .badRequest)
                }
                let client = parameters["client"].map(String.init)
                let named = parameters["person"].map(String.init)
                if client != nil, named != nil {
                    throw Components.Schemas.ErrorBody(error: "give 'person' or 'client', not both", code: .badRequest)
                }
                let person =
                    client == nil ? try policy.person(named: named, caller: context.remoteAddress) : People.defaultName
                return try policy.explain(
                    name: name, type: parameters["type"].map(String.init) ?? "A", person: person, client: client)
            }
        }
    }
}
