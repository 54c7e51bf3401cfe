/// The part of one person's policy that can be changed while lockr runs, as a whole: what `lockr
/// config export` writes and `lockr config import` asks for. Devices, the sentence, the day's
/// calendar and the allowances stay the config file's.
public struct RunTimeSettings: Sendable, Equatable, Codable {
    public var mode: Mode
    public var budget: Duration
    public var perApp: Bool
    public var hourlyWindow: Duration
    public var extremeWindow: Duration
    /// Guarded app ids, in order.
    public var guarded: [String]
    public var schedules: [Schedule]
    /// Every profile defined (the config file's and those made at run time), on or off.
    public var profiles: [Profile]
    public var gate: GateSettings

    public init(
        mode: Mode, budget: Duration, perApp: Bool, hourlyWindow: Duration, extremeWindow: Duration,
        guarded: [String], schedules: [Schedule], profiles: [Profile], gate: GateSettings
    ) {
        self.mode = mode
        self.budget = budget
        self.perApp = perApp
        self.hourlyWindow = hourlyWindow
        self.extremeWindow = extremeWindow
        self.guarded = guarded
        self.schedules = schedules
        self.profiles = profiles
        self.gate = gate
    }

    /// The run-time settings of `asked` (a protection asked for) and `profiles` (every one defined).
    init(asked: Protection, profiles: [Profile]) {
        let settings = asked.settings
        self.init(
            mode: settings.mode, budget: settings.time.budget, perApp: settings.time.perApp,
            hourlyWindow: settings.hourly.window, extremeWindow: settings.extreme.window, guarded: asked.guarded,
            schedules: asked.schedules ?? [], profiles: profiles, gate: settings.gate)
    }
}
