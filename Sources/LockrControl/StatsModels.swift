import LockrPolicy

// The control API's statistics: each person's days and streaks.
