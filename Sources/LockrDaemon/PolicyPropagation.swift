import LockrStore

/// Carries changes of anyone's policy out of the engines: to the store, to the DNS pipeline (when
/// the app names in force changed) and to the adapters' block sets.
struct PolicyPropagation: Sendable {
    let household: Household
    let clock: PolicyClock
    let saver: PolicySaver
    /// Hands block sets to the adapters, when backends are configured.
    let publisher: BlockSetPublisher?

    /// Saves (everyone with `savingAll`, else those who changed or were not saved for a minute),
    /// rebuilds the app names that changed (telling the pipeline with `notify`) and publishes. A
    /// failed save is thrown once the rest is done.
    func propagate(savingAll: Bool, notify: Bool = true) throws(StoreError) {
        let now = clock.now()
        let saved: Result<Void, StoreError>
        do throws(StoreError) {
            try saver.save(household.everyone, at: now, force: savingAll)
            saved = .success(())
        } catch {
            saved = .failure(error)
        }
        household.refreshNaming(notify: notify)
        publish()
        try saved.get()
    }

    /// Hands everyone's block set to the adapters (which queue it only when it changed).
    func publish() { publisher?.publish(household, at: clock.now()) }
}
