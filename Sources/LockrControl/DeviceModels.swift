import LockrPolicy

// The control API's devices, backends and the app catalogue.
