import LockrControl
import LockrPolicy
import Synchronization

/// Moves everyone's policy on with time: every second (every 100 ms under `--time-scale`) each
/// engine closes what ended and counts what was used, what changed is told to live listeners,
/// devices that turned protection off are flagged, and the changes are saved (usage while it grows
/// at once; otherwise at least once a minute, so a kill loses at most a second or two of metering)
/// and carried out.
final class PolicyTicker: Sendable {
    private let household: Household
    private let clock: PolicyClock
    private let watch: DeviceWatch
    private let propagation: PolicyPropagation
    private let liveEvents: LiveEventHub
    /// How far the wall clock had moved against the boot clock at the last tick.
    private let wallOffset = Mutex(Duration.zero)
    private let lastTick = Mutex(ContinuousClock.now)

    /// When it last ticked (the watchdog's sign that the policy clock runs).
    var lastTicked: ContinuousClock.Instant { lastTick.withLock { $0 } }

    init(
        household: Household, clock: PolicyClock, watch: DeviceWatch, propagation: PolicyPropagation,
        liveEvents: LiveEventHub
    ) {
        self.liveEvents = liveEvents
        self.household = household
        self.clock = clock
        self.watch = watch
        self.propagation = propagation
    }

    /// Ticks until cancelled; then saves everyone a last time.
    func run() async {
        let interval: Duration = clock.scale > 1 ? .milliseconds(100) : .seconds(1)
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            tick()
        }
        try? propagation.saver.save(household.everyone, at: clock.now(), force: true)
    }

    func tick() {
        lastTick.withLock { $0 = .now }
        let now = clock.now()
        let offset = clock.wallOffset()
        let jump = wallOffset.withLock { last -> Duration? in
            let step = offset - last
            last = offset
            return abs(step.milliseconds) > 2000 ? step : nil
        }
        for person in household.everyone {
            if let jump { person.withEngine { $0.note(.clockJump(jump), at: now) } }
            liveEvents.publish(person.tick(at: now), of: person.name)
        }
        handOverDevices(at: now)
        checkDevices(at: now)
        try? propagation.propagate(savingAll: clock.scale != 1)
    }

    /// Carries out the device moves whose time has come (also those due while lockr was down): the
    /// person each was handed to claims it (the default person needs no claim).
    private func handOverDevices(at now: Instant) {
        var moved = false
        for person in household.everyone {
            for handOver in person.withEngine({ $0.takeDueHandOvers(at: now) }) {
                if handOver.person != People.defaultName {
                    household.policy(of: handOver.person)?.withEngine { _ = $0.claimDevice(handOver.device, at: now) }
                }
                moved = true
            }
        }
        if moved { household.devicesChanged() }
    }

    /// Flags the devices that turned protection off, and clears those that ask again.
    private func checkDevices(at now: Instant) {
        watch.check(
            after: household.protectionOffAfter, scale: clock.scale,
            guards: { number in household.policy(number: number).read { !$0.guarded.isEmpty } },
            note: { number, off, detail in
                household.policy(number: number).withEngine {
                    $0.note(off ? .protectionOff(detail) : .protectionBack(detail), at: now)
                }
            })
    }
}
