import LockrPolicy

// The control API's event log, live events and doctor's checks.
