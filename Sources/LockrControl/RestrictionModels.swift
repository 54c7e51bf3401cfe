import LockrAPI
import LockrPolicy

// The JSON bodies of schedules and profiles (`/api/v1/schedules`, `/api/v1/profiles`).

extension Components.Schemas.ScheduleBody {
    init(_ status: ScheduleStatus, now: Instant, calendar: DayCalendar) {
        let schedule = status.schedule
        self.init(
            name: schedule.name,
            days: schedule.days.description,
            from: Schedule.clock(schedule.from),
            to: Schedule.clock(schedule.to),
            block: schedule.block,
            activeUntil: status.activeUntil.map { Components.Schemas.TimeBody($0, now: now, calendar: calendar) })
    }
}

extension Components.Schemas.ProfileBody {
    init(_ status: ProfileStatus, now: Instant, calendar: DayCalendar) {
        self.init(
            name: status.profile.name,
            block: status.profile.block,
            active: status.active != nil,
            until: status.active?.until.map {
                Components.Schemas.TimeBody($0, now: now, calendar: calendar, dated: true)
            },
            fromConfig: status.fromConfig)
    }
}

extension Components.Schemas.RestrictionBody {
    init(_ restriction: Restriction, now: Instant, calendar: DayCalendar) {
        let until = restriction.until.map { Components.Schemas.TimeBody($0, now: now, calendar: calendar) }
        switch restriction.source {
        case .schedule(let name): self.init(kind: .schedule, name: name, until: until)
        case .profile(let name): self.init(kind: .profile, name: name, until: until)
        }
    }
}
