import ArgumentParser
import LockrAPI
import LockrControl
import PlainText

struct DevicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "Every device that asked lately: its person, how lockr knew it, when it last asked.",
        discussion: """
            A device of a person with guarded apps that stops asking lockr for longer than protection-off-after \
            (10 min by default) but still answers on the network (lockr sends it one datagram, and the kernel \
            asks for it by ARP or NDP) shows "protection off": it may use another resolver or its own encrypted \
            DNS. Where lockr reads no neighbour table (it is not on the device's LAN), or the device does not \
            answer, it can only say how long the device has not been seen.
            """
    )

    @OptionGroup var client: ClientOptions
    @OptionGroup var person: PersonOption

    func run() async throws {
        let answer = await client.call { try await $0.listDevices(query: .init(person: person.person)).ok.body.json }
        client.show(answer) { answer in
            guard !answer.devices.isEmpty else { return "No device has asked lockr yet." }
            let width = max(8, answer.devices.map { deviceName($0).count }.max() ?? 0)
            let personWidth = max(6, answer.devices.map(\.person.count).max() ?? 0)
            return answer.devices.map { device in
                [
                    device.person.padded(to: personWidth),
                    deviceName(device).padded(to: width),
                    "by \(device.identifiedBy)", "· " + deviceState(device),
                ].joined(separator: "  ")
            }.joined(separator: "\n")
        }
    }
}

/// "id:alice-phone (192.168.1.20)", "192.168.1.20 (aa:bb:cc:dd:ee:ff)" or the address alone.
func deviceName(_ device: Components.Schemas.DeviceBody) -> String {
    if let id = device.clientId { return "id:\(id) (\(device.address))" }
    return device.address + (device.mac.map { " (\($0))" } ?? "")
}

/// "seen 14:02", or the note that explains a device that stopped asking.
func deviceState(_ device: Components.Schemas.DeviceBody) -> String {
    let seen = "last asked \(device.lastSeen.local)"
    guard let note = device.note else { return seen }
    return device.state == .protectionOff ? "PROTECTION OFF: \(note) (\(seen))" : "\(note) (\(seen))"
}
