import LockrPolicy

// The control API's status: each person's apps, their access and the day's figures.
