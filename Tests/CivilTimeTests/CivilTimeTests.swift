import CivilTime
import Foundation
import Testing

@Suite struct CivilDateTests {
    @Test func daysAndDatesAgreeWithFoundationFrom1600To2400() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        for days in stride(from: -135_000, through: 157_000, by: 97) {
            let date = CivilDate(daysSinceEpoch: days)
            let parts = calendar.dateComponents(
                [.year, .month, .day, .weekday], from: Date(timeIntervalSince1970: TimeInterval(days) * 86_400))
            guard date.year == parts.year, date.month == parts.month, date.day == parts.day,
                date.weekday == (parts.weekday! + 5) % 7, date.daysSinceEpoch == days
            else {
                Issue.record("day \(days): \(date) weekday \(date.weekday), Foundation \(parts)")
                return
            }
        }
    }

    @Test func aDayPastTheMonthRollsOverAndLeapYearsAreGregorian() {
        #expect(CivilDate(year: 2026, month: 2, day: 29).description == "2026-03-01")
        #expect(CivilDate.isLeap(2000) && !CivilDate.isLeap(1900) && CivilDate.isLeap(2028))
        #expect(CivilDate(year: 1970, month: 1, day: 1).weekday == 3)  // a Thursday
        #expect(CivilDateTime(secondsSinceEpoch: -1).date.description == "1969-12-31")
        #expect(CivilDateTime(secondsSinceEpoch: -1).secondOfDay == 86_399)
    }
}

@Suite struct PosixZoneRuleTests {
    @Test func theRulesOfRealFootersAreRead() throws {
        let berlin = try #require(PosixZoneRule("CET-1CEST,M3.5.0,M10.5.0/3"))
        #expect(berlin.standardOffset == 3_600)
        #expect(berlin.daylight?.offset == 7_200)
        #expect(berlin.daylight?.start.day == .monthWeekDay(month: 3, week: 5, weekday: 0))
        #expect(berlin.daylight?.start.seconds == 7_200)
        #expect(berlin.daylight?.end.seconds == 10_800)
        // 2026-03-29 01:00 UTC is when Berlin's clocks go forward; 2026-10-25 01:00 UTC back.
        #expect(berlin.offset(at: 1_774_746_000 - 1) == 3_600 && berlin.offset(at: 1_774_746_000) == 7_200)
        #expect(berlin.nextChange(after: 1_774_000_000) == 1_774_746_000)
        #expect(berlin.nextChange(after: 1_774_746_000) == 1_792_890_000)
        let quoted = try #require(PosixZoneRule("<+1030>-10:30<+11>-11,M10.1.0,M4.1.0"))
        #expect(quoted.standardOffset == 37_800 && quoted.daylight?.offset == 39_600)
        let chatham = try #require(PosixZoneRule("<+1245>-12:45<+1345>,M9.5.0/2:45,M4.1.0/3:45"))
        #expect(chatham.daylight?.offset == 49_500)
        #expect(PosixZoneRule("<-03>3")?.daylight == nil)
        #expect(PosixZoneRule("<-03>3")?.standardOffset == -10_800)
        // DST all year (RFC 8536's example): the offset never changes.
        let allYear = try #require(PosixZoneRule("EST5EDT,0/0,J365/25"))
        #expect(allYear.offset(at: 1_767_225_600) == -14_400 && allYear.offset(at: 1_782_000_000) == -14_400)
        let israel = try #require(PosixZoneRule("IST-2IDT,M3.4.4/26,M10.5.0"))
        #expect(israel.daylight?.start.seconds == 93_600)
        #expect(PosixZoneRule("<+00>0<+02>-2,M3.5.0/1,M10.5.0/3")?.daylight?.offset == 7_200)
    }

    @Test(arguments: [
        "", "CET", "CE-1", "CET-1CEST", "CET-1CEST,M3.5.0", "CET-1CEST,M13.5.0,M10.5.0", "CET-1CEST,M3.6.0,M10.5.0",
        "CET-1CEST,M3.5.7,M10.5.0", "CET-1CEST,J0,J365", "CET-1CEST,366,0", "CET-25", "CET-1:60",
        "CET-1CEST,M3.5.0/168,J1",
        "<AB>1", "<A B>1", "CET-1CEST,M3.5.0,M10.5.0x", "CET1 ",
    ])
    func whatIsNotARuleIsRefused(_ text: String) {
        #expect(PosixZoneRule(text) == nil, "'\(text)'")
    }
}

@Suite struct TZifTests {
    /// A version-2 TZif file: `types` (offset, is DST), transitions to them, a footer.
    static func tzif(transitions: [(Int64, UInt8)], types: [(Int32, UInt8)], footer: String) -> [UInt8] {
        func be<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }
        func header(_ timeCount: Int) -> [UInt8] {
            Array("TZif2".utf8) + [UInt8](repeating: 0, count: 15) + be(UInt32(0)) + be(UInt32(0)) + be(UInt32(0))
                + be(UInt32(timeCount)) + be(UInt32(types.count)) + be(UInt32(4))
        }
        let typeBytes = types.flatMap { be($0.0) + [$0.1, 0] } + Array("ABC\0".utf8)
        let v1 = header(0) + typeBytes
        let v2 = header(transitions.count) + transitions.flatMap { be($0.0) } + transitions.map(\.1) + typeBytes
        return v1 + v2 + Array("\n\(footer)\n".utf8)
    }

    @Test func aFileOfItsOwnGivesItsOffsetsAndTheFooterAfterIt() throws {
        let bytes = Self.tzif(
            transitions: [(0, 1), (1_000, 0), (2_000, 1)], types: [(3_600, 0), (7_200, 1)], footer: "<+02>-2")
        let zone = try ZoneRules(identifier: "Test/Own", tzif: bytes)
        #expect(zone.offset(at: -1) == 3_600 && zone.offset(at: 0) == 7_200 && zone.offset(at: 1_500) == 3_600)
        #expect(zone.offset(at: 5_000_000) == 7_200)
        #expect(
            zone.nextChange(after: -10) == 0 && zone.nextChange(after: 0) == 1_000
                && zone.nextChange(after: 2_000) == nil)
        // At 0 the clocks skip from 01:00 to 02:00: a wall time in between is the skip's instant.
        #expect(zone.firstInstant(atWallClock: 4_599) == 0 && zone.firstInstant(atWallClock: 3_599) == -1)
        #expect(zone.firstInstant(atWallClock: 7_300) == 100 && zone.firstInstant(atWallClock: 5_000) == 1_400)
    }

    @Test func everyRealZoneFileIsRead() throws {
        let directory = "/usr/share/zoneinfo"
        let names = try #require(FileManager.default.subpaths(atPath: directory)).filter {
            $0.first!.isUppercase && !$0.hasSuffix(".tab") && !$0.hasSuffix(".zi") && !$0.hasPrefix("SystemV")
                && !$0.hasPrefix("posix") && !$0.hasPrefix("right")
        }
        var read = 0
        for name in names {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory + "/" + name, isDirectory: &isDirectory),
                !isDirectory.boolValue
            else { continue }
            do {
                let zone = try ZoneDatabase(directory: directory).zone(name)
                let expected = TimeZone(identifier: name)?.secondsFromGMT(
                    for: Date(timeIntervalSince1970: 1_790_000_000))
                if let expected, ["Europe/", "America/New_York", "Asia/Tokyo"].contains(where: name.hasPrefix) {
                    #expect(Int(zone.offset(at: 1_790_000_000)) == expected, "\(name)")
                }
                read += 1
            } catch {
                Issue.record("\(name): \(error)")
            }
        }
        #expect(read > 300, "\(read) zones read")
    }

    @Test func everyTruncationOfARealFileIsRefusedInWords() throws {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: "/usr/share/zoneinfo/Europe/Berlin")))
        for length in 0..<bytes.count - 1 {
            #expect(throws: TZifError.self, "\(length) bytes") {
                try ZoneRules(identifier: "Europe/Berlin", tzif: Array(bytes[0..<length]))
            }
        }
    }

    @Test func malformedFilesSayWhat() {
        func problem(_ bytes: [UInt8]) -> String {
            do {
                _ = try ZoneRules(identifier: "X", tzif: bytes)
                return "read"
            } catch { return error.description }
        }
        #expect(problem(Array("not a zone".utf8)) == "not a TZif file (no TZif header)")
        var version = Self.tzif(transitions: [], types: [(0, 0)], footer: "UTC0")
        version[4] = UInt8(ascii: "9")
        #expect(problem(version) == "unknown TZif version 57")
        #expect(
            problem(Self.tzif(transitions: [(10, 0), (5, 0)], types: [(0, 0)], footer: ""))
                == "transitions out of order")
        #expect(
            problem(Self.tzif(transitions: [(10, 3)], types: [(0, 0)], footer: ""))
                == "a transition names a type that does not exist")
        #expect(problem(Self.tzif(transitions: [], types: [(0, 0)], footer: "nonsense")).contains("is not a TZ rule"))
        #expect(
            problem(Self.tzif(transitions: [], types: [(200_000, 0)], footer: "")) == "an offset of 200000 s from UTC")
        #expect(
            problem(Self.tzif(transitions: [(Int64.min, 0)], types: [(0, 0)], footer: ""))
                == "a transition out of range")
        #expect(problem(Self.tzif(transitions: [], types: [], footer: "")).contains("0 local time types"))
    }
}

@Suite struct ZoneDatabaseTests {
    @Test func namesThatLeaveTheDatabaseOrAreNotNamesAreRefused() {
        for name in ["", "../etc/passwd", "/etc/passwd", "Europe/../../x", "Europe//Berlin", "Europe/Berlin ", "-x"] {
            #expect(throws: ZoneLookupError.badName(name), "'\(name)'") { try ZoneDatabase().zone(name) }
        }
        #expect(throws: ZoneLookupError.unknown("Mars/Olympus", directory: "/usr/share/zoneinfo")) {
            try ZoneDatabase(directory: "/usr/share/zoneinfo").zone("Mars/Olympus")
        }
        #expect(
            ZoneLookupError.unknown("Mars/Olympus", directory: "/usr/share/zoneinfo").description
                == "unknown time zone 'Mars/Olympus' (not in /usr/share/zoneinfo; use a name such as Europe/Berlin)")
    }

    @Test func aDatabaseElsewhereIsReadAndUTCNeedsNoFile() throws {
        let directory = NSTemporaryDirectory() + "zones-\(UUID())"
        try FileManager.default.createDirectory(atPath: directory + "/Test", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let bytes = TZifTests.tzif(transitions: [], types: [(19_800, 0)], footer: "<+0530>-5:30")
        try Data(bytes).write(to: URL(fileURLWithPath: directory + "/Test/Half"))
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: directory + "/Test/Bad"))
        let database = ZoneDatabase(directory: directory)
        #expect(try database.zone("Test/Half").offset(at: 0) == 19_800)
        #expect(try database.zone("UTC") == .utc)
        #expect(throws: ZoneLookupError.unreadable("Test/Bad", TZifError("not a TZif file (no TZif header)"))) {
            try database.zone("Test/Bad")
        }
    }

    @Test func aPosixRuleIsAZoneOfItsOwnForAMachineWithoutTheDatabase() throws {
        let rule = "CET-1CEST,M3.5.0,M10.5.0/3"
        let berlin = try ZoneDatabase().zone("Europe/Berlin")
        for database in [ZoneDatabase(), ZoneDatabase(directory: "/nonexistent")] {
            let zone = try database.zone(rule)
            #expect(zone.identifier == rule)
            // Every hour of 2025 to 2030, and every change, as the real file has them.
            for hour in stride(from: Int64(1_735_689_600), to: 1_924_992_000, by: 3_600) {
                #expect(zone.offset(at: hour) == berlin.offset(at: hour), "\(hour)")
            }
            #expect(zone.nextChange(after: 1_735_689_600) == berlin.nextChange(after: 1_735_689_600))
        }
        #expect(try ZoneDatabase(directory: "/nonexistent").zone("UTC0").offset(at: 0) == 0)
        #expect(try ZoneDatabase(directory: "/nonexistent").zone("<+0530>-5:30").offset(at: 0) == 19_800)
        #expect(throws: ZoneLookupError.badName("EST5EDT,M3.2.0")) { try ZoneDatabase().zone("EST5EDT,M3.2.0") }
        #expect(
            ZoneLookupError.badName("x,y").description
                == "'x,y' is not a time zone name (such as Europe/Berlin) or a POSIX TZ rule (such as CET-1CEST,M3.5.0,M10.5.0/3)"
        )
    }

    @Test func theMachinesZoneIsTheFirstItsFilesOrEnvironmentName() throws {
        let directory = NSTemporaryDirectory() + "machine-zone-\(UUID())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let files = FileManager.default
        let localtime = directory + "/localtime"
        let timezoneName = directory + "/timezone"
        let ruleFile = directory + "/TZ"
        func machineZone(tz: String? = nil) -> MachineZone {
            ZoneDatabase().zoneOfMachine(
                SystemZoneSources(tz: tz, localtime: localtime, timezoneName: timezoneName, rule: ruleFile))
        }
        func machine(tz: String? = nil) -> String { machineZone(tz: tz).rules.identifier }
        #expect(machine() == "UTC" && machineZone().namedBy == nil, "nothing says")
        try "EST5EDT,M3.2.0,M11.1.0\n".write(toFile: ruleFile, atomically: true, encoding: .utf8)
        #expect(machine() == "EST5EDT,M3.2.0,M11.1.0", "OpenWrt's /etc/TZ")
        #expect(machineZone().namedBy == ruleFile)
        // A copied file (Docker images, some routers) says its rule through its footer.
        try files.copyItem(atPath: "/usr/share/zoneinfo/Europe/Berlin", toPath: localtime)
        #expect(machine() == "CET-1CEST,M3.5.0,M10.5.0/3", "a copy of Europe/Berlin")
        try "Asia/Tokyo\n".write(toFile: timezoneName, atomically: true, encoding: .utf8)
        #expect(machine() == "Asia/Tokyo", "Debian's /etc/timezone names it")
        try files.removeItem(atPath: localtime)
        try files.createSymbolicLink(atPath: localtime, withDestinationPath: "/usr/share/zoneinfo/America/New_York")
        #expect(machine() == "America/New_York", "the link")
        #expect(machineZone().namedBy == localtime)
        #expect(machine(tz: ":Europe/Lisbon") == "Europe/Lisbon" && machineZone(tz: "UTC").namedBy == "$TZ")
        #expect(machine(tz: "/usr/share/zoneinfo/Australia/Perth") == "Australia/Perth")
        #expect(machine(tz: "<+0530>-5:30") == "<+0530>-5:30")
        #expect(machine(tz: "Nowhere/Else") == "America/New_York", "a TZ that names nothing is passed over")
    }
}
