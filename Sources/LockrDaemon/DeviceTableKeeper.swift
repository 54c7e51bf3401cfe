import DNSProxy
import LockrStore
import Logging

/// Keeps the devices seen across restarts (restored at start, saved every minute and at the end)
/// and says in the log when the table had to forget devices to make room.
struct DeviceTableKeeper: Sendable {
    let watch: DeviceWatch
    let store: DeviceStore
    let household: Household
    let logger: Logger
    var period: Duration = .seconds(60)

    /// Puts back the devices saved by the last run.
    func restore() {
        do {
            let devices = try store.all()
            watch.restore(devices) { name in household.policy(of: name)?.number }
        } catch {
            logger.warning("cannot read the devices seen before the restart", metadata: ["error": "\(error)"])
        }
    }

    /// Saves every `period` until cancelled, then once more; looks at what the table forgot every
    /// few seconds and says so at most once a `period`.
    func run() async {
        let look: Duration = .seconds(5)
        var reported = watch.sightings.counts
        var sinceSave: Duration = .zero
        var sinceReport = period
        while !Task.isCancelled {
            try? await Task.sleep(for: look)
            sinceSave += look
            sinceReport += look
            if sinceSave >= period {
                save()
                sinceSave = .zero
            }
            let counts = watch.sightings.counts
            guard sinceReport >= period, counts.evicted > reported.evicted || counts.dropped > reported.dropped
            else { continue }
            logger.warning(
                "device table full: forgot the least recently seen unassigned devices to make room",
                metadata: [
                    "forgotten": "\(counts.evicted - reported.evicted)",
                    "not-kept": "\(counts.dropped - reported.dropped)", "devices": "\(counts.devices)",
                    "capacity": "\(watch.sightings.capacity)",
                ])
            reported = counts
            sinceReport = .zero
        }
        save()
    }

    private func save() {
        do {
            try store.replace(with: watch.stored { number in household.policy(number: number).name })
        } catch {
            logger.warning("cannot save the devices seen", metadata: ["error": "\(error)"])
        }
    }
}
