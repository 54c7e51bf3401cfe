import CivilTime
import Testing

@testable import LockrDaemon

/// `lockr doctor`'s time zone line: where each policy's zone comes from, and a failure only when a
/// policy runs by UTC because nothing on the machine names a zone.
@Suite struct DoctorTimeZoneTests {
    let berlin = MachineZone(rules: try! ZoneDatabase().zone("Europe/Berlin"), namedBy: "/etc/localtime")
    let unnamed = MachineZone(rules: .utc, namedBy: nil)

    @Test func eachZoneSaysWhereItCameFrom() {
        let check = Doctor.timeZoneCheck(policyZones: ["Europe/Berlin", "Asia/Tokyo"], machine: berlin)
        #expect(check.ok)
        #expect(check.detail == "Europe/Berlin (this machine's, from /etc/localtime), Asia/Tokyo (the config's)")
    }

    @Test func aPolicyOnUTCBecauseNothingNamesAZoneFailsWithTheFix() {
        let check = Doctor.timeZoneCheck(policyZones: ["UTC"], machine: unnamed)
        #expect(!check.ok)
        #expect(check.detail == "UTC, as nothing on this machine names its zone ($TZ, /etc/localtime, /etc/timezone, /etc/TZ)")
        #expect(check.fix?.contains("time-zone = \"Europe/Berlin\"") == true)
        let configured = Doctor.timeZoneCheck(policyZones: ["Europe/Lisbon"], machine: unnamed)
        #expect(configured.ok && configured.detail == "Europe/Lisbon (the config's)", "a zone in the config is enough")
    }
}
