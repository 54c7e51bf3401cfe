import LockrAPI

/// A refusal, thrown by the routes and answered as it is.
extension Components.Schemas.ErrorBody: Error {}
