import Foundation
import LockrAPI
import LockrPolicy
import PlainText

extension Components.Schemas.TimeBody {
    /// `dated`: `local` carries the date too ("2026-11-22 04:00"), for moments that may be days away.
    public init(_ instant: Instant, now: Instant, calendar: DayCalendar, dated: Bool = false) {
        self.init(
            at: instant.date,
            local: dated ? calendar.dateTimeText(instant) : calendar.clockText(instant),
            inSeconds: (instant - now).secondsRoundedUp)
    }
}

extension Components.Schemas.StatusBody {
    /// Where `person` stands in `view`, with `devices` (theirs), as the API and the web pages show it.
    public init(person: String, view: PolicyView, devices: [Components.Schemas.DeviceBody]) {
        let safeSearch = view.policy.inForceNames.safeSearch
        self.init(
            person: person, view.policy.status(at: view.now), summary: view.policy.settings.modeSummary,
            safeSearch: safeSearch.isOn ? safeSearch.text : nil, calendar: view.calendar, devices: devices)
    }

    init(
        person: String, _ status: PolicyStatus, summary: String, safeSearch: String?, calendar: DayCalendar,
        devices: [Components.Schemas.DeviceBody]
    ) {
        let now = status.now
        func time(_ instant: Instant) -> Components.Schemas.TimeBody {
            Components.Schemas.TimeBody(instant, now: now, calendar: calendar)
        }
        self.init(
            person: person,
            now: now.date,
            nowLocal: calendar.dateTimeText(now),
            timeZone: calendar.zone.identifier,
            mode: status.mode,
            summary: summary,
            safeSearch: safeSearch,
            day: status.day.key,
            dayEnds: time(status.day.end),
            budgetMinutes: status.budget.milliseconds / 60_000,
            extraMinutes: status.extraBudget.milliseconds / 60_000,
            perApp: status.perAppBudget,
            windowMinutes: status.window.milliseconds / 60_000,
            snoozes: Components.Schemas.CounterBody(used: status.snoozes.used, perDay: status.snoozes.perDay),
            extensions: Components.Schemas.CounterBody(used: status.extensions.used, perDay: status.extensions.perDay),
            emergencies: Components.Schemas.CounterBody(
                used: status.emergencies.used, perDay: status.emergencies.perDay),
            gateMisses: status.gateMisses,
            cooldownEnds: status.cooldownUntil.map(time),
            totalUsedSeconds: status.totalUsed.milliseconds / 1000,
            totalChargedSeconds: status.totalCharged.milliseconds / 1000,
            apps: status.apps.map { app in
                Components.Schemas.AppBody(
                    id: app.id, name: app.name, open: app.open,
                    state: Components.Schemas.AccessBody(app.access, of: app.id, now: now, calendar: calendar),
                    reason: app.reason,
                    usedSeconds: app.used.milliseconds / 1000, unchargedSeconds: app.uncharged.milliseconds / 1000,
                    budgetSeconds: app.budget.map { $0.milliseconds / 1000 },
                    leftSeconds: app.left.map { $0.secondsRoundedUp }, windowEnds: app.windowEnds.map(time),
                    nextReset: time(app.nextReset), guarded: app.guarded,
                    restriction: app.restriction.map {
                        Components.Schemas.RestrictionBody($0, now: now, calendar: calendar)
                    })
            },
            pending: status.pending.map { Components.Schemas.PendingBody($0, now: now, calendar: calendar) },
            overridden: status.overridden,
            schedules: status.schedules.map { Components.Schemas.ScheduleBody($0, now: now, calendar: calendar) },
            profiles: status.profiles.map { Components.Schemas.ProfileBody($0, now: now, calendar: calendar) },
            devices: devices)
    }
}

extension Components.Schemas.AccessBody {
    init(_ access: AppAccess, of app: String, now: Instant, calendar: DayCalendar) {
        var window: String?
        if case .window(let kind, _) = access { window = kind.rawValue }
        var opening: AppAccess.Opening?
        if case .locked(let how, _) = access { opening = how }
        self.init(
            code: access.code, text: AccessText(calendar: calendar).text(access, of: app, at: now),
            until: access.until.map { Components.Schemas.TimeBody($0, now: now, calendar: calendar) }, window: window,
            opensBy: opening)
    }
}

extension Components.Schemas.PendingBody {
    init(_ pending: PendingChange, now: Instant, calendar: DayCalendar) {
        self.init(
            id: pending.id,
            change: pending.change.description,
            source: pending.source,
            appliesAt: Components.Schemas.TimeBody(pending.appliesAt, now: now, calendar: calendar, dated: true),
            awaitingSentence: pending.awaitingSentence)
    }
}

extension Components.Schemas.ChangeBody {
    init(_ outcome: ChangeOutcome, now: Instant, calendar: DayCalendar) {
        self.init(
            applied: outcome.applied.map(\.description),
            pending: outcome.pending.map { Components.Schemas.PendingBody($0, now: now, calendar: calendar) },
            cancelled: outcome.cancelled.map { Components.Schemas.PendingBody($0, now: now, calendar: calendar) })
    }
}

extension Components.Schemas.WindowBody {
    init(_ window: UnlockWindow, now: Instant, calendar: DayCalendar) {
        self.init(
            app: window.app,
            kind: window.kind,
            ends: Components.Schemas.TimeBody(window.ends, now: now, calendar: calendar))
    }
}

extension Components.Schemas.LiveEventBody {
    public init(_ numbered: NumberedLiveEvent, calendar: DayCalendar) {
        let event = numbered.event
        self.init(
            id: numbered.id, person: numbered.person, _type: event.kind.rawValue, at: event.at.date,
            local: calendar.clockText(event.at), app: event.app, appName: event.appName,
            state: event.access.map {
                Components.Schemas.AccessBody($0, of: event.app ?? "", now: event.at, calendar: calendar)
            },
            minutesLeft: event.minutesLeft, opensToday: event.count,
            until: event.until.map { Components.Schemas.TimeBody($0, now: event.at, calendar: calendar) },
            message: event.message,
            suggestion: numbered.suggestion)
    }
}

extension Components.Schemas.EventBody {
    /// `logged`, its time in `calendar`'s zone.
    public init(_ logged: LoggedEvent, calendar: DayCalendar) {
        let event = logged.event
        self.init(
            person: logged.person,
            at: event.at.date,
            local: calendar.dateTimeText(event.at),
            _type: event.type.rawValue,
            app: event.app,
            detail: event.detail,
            action: event.action)
    }
}

extension ControlFailure {
    /// The HTTP status and JSON body that report this failure.
    public var response: (status: Int, body: Components.Schemas.ErrorBody) {
        switch self {
        case .storage(let message): return (500, Components.Schemas.ErrorBody(error: message, code: .storage))
        case .unknownPerson(let name, let people):
            return (
                404,
                Components.Schemas.ErrorBody(
                    error: "no person '\(name)' (people: \(people.joined(separator: ", ")))", code: .unknownPerson)
            )
        case .personNeeded(let people):
            return (
                400,
                Components.Schemas.ErrorBody(
                    error: "say whom this is for with --person NAME (in the API, ?person=NAME); "
                        + "people: \(people.joined(separator: ", "))",
                    code: .personRequired)
            )
        case .refused(let refusal):
            let (status, code): (Int, Components.Schemas.ErrorCode)
            var retry: Int64?
            var sentence: String?
            var heard: String?
            switch refusal {
            case .unknownApp: (status, code) = (404, .unknownApp)
            case .notGuarded: (status, code) = (409, .notGuarded)
            case .notInThisMode: (status, code) = (409, .notInThisMode)
            case .limitReached: (status, code) = (429, .limitReached)
            case .nothingToDo: (status, code) = (409, .nothingToDo)
            case .phraseRequired(let wanted):
                (status, code) = (403, .phraseRequired)
                sentence = wanted
            case .wrongPhrase(_, _, let cooldown):
                (status, code) = (403, .wrongPhrase)
                retry = cooldown?.secondsRoundedUp
            case .notTheSentence(let transcript, _, let cooldown):
                (status, code) = (403, .wrongPhrase)
                retry = cooldown?.secondsRoundedUp
                heard = transcript
            case .wrongAnswer(_, _, let cooldown):
                (status, code) = (403, .wrongAnswer)
                retry = cooldown?.secondsRoundedUp
            case .gateIncomplete: (status, code) = (403, .gateRequired)
            case .unreadableAnswer: (status, code) = (400, .unreadableAnswer)
            case .challengeClosed: (status, code) = (410, .challengeClosed)
            case .coolingDown(let remaining, _):
                (status, code) = (429, .coolingDown)
                retry = remaining.secondsRoundedUp
            case .windowUsed: (status, code) = (409, .windowUsed)
            case .restricted: (status, code) = (409, .restricted)
            case .notFound: (status, code) = (404, .notFound)
            case .holdIncomplete: (status, code) = (409, .holdIncomplete)
            case .invalidSettings: (status, code) = (400, .invalidSettings)
            case .pinRequired: (status, code) = (403, .pinRequired)
            case .wrongPin(_, let lockout):
                (status, code) = (403, .wrongPin)
                retry = lockout?.secondsRoundedUp
            case .pinLocked(let remaining, _):
                (status, code) = (429, .pinLocked)
                retry = remaining.secondsRoundedUp
            }
            return (
                status,
                Components.Schemas.ErrorBody(
                    error: refusal.message, code: code, retryAfterSeconds: retry, sentence: sentence, heard: heard)
            )
        }
    }
}

extension Components.Schemas.TimeBody {
    /// "4:05" for `seconds` left (none below zero), as countdowns show it (`lockr watch`, the web page).
    public static func countdown(_ seconds: Int64) -> String {
        let seconds = max(0, seconds)
        return "\(seconds / 60):" + PlainText.padded(Int(seconds % 60), to: 2)
    }
}
