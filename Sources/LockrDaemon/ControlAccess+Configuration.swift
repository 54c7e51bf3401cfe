import DNSProxy
import LockrAPI
import LockrControl
import LockrPolicy
import LockrStore

/// `lockr config export` and `lockr config import` on the household.
extension ControlAccess {
    func configuration() -> Components.Schemas.ConfigurationDocument {
        Components.Schemas.ConfigurationDocument(
            people: parts.household.peopleNames().compactMap { name in
                parts.household.policy(of: name).map { person in
                    Components.Schemas.PersonConfiguration(
                        name: name, devices: parts.household.configuredDevices(of: name),
                        settings: person.read(\.runTimeSettings))
                }
            })
    }

    func importConfiguration(
        _ document: Components.Schemas.ConfigurationDocument, pin: PinCheck, checkOnly: Bool
    ) throws
        -> Components.Schemas.ConfigurationImportResponse
    {
        var people: [PersonPolicy] = []
        var wanted: [RunTimeSettings] = []
        for person in document.people {
            guard let policy = parts.household.policy(of: person.name),
                parts.household.peopleNames().contains(person.name)
            else {
                throw invalid(
                    "people.\(person.name): no such person (people: \(parts.household.peopleNames().joined(separator: ", "))); "
                        + "people and their devices are made in the config file ([people.\(person.name)])")
            }
            try checkDevices(person)
            do throws(ConfigurationProblem) { wanted.append(try person.settings()) } catch {
                throw invalid(error.description)
            }
            people.append(policy)
        }
        let now = parts.clock.now()
        let changes: [Components.Schemas.ConfigurationImportResponse.PeoplePayloadPayload]
        do {
            changes = try parts.propagation.saver.commit(people, in: parts.household, at: now) { engines in
                var changes: [Components.Schemas.ConfigurationImportResponse.PeoplePayloadPayload] = []
                for index in engines.indices {
                    let name = people[index].name
                    do throws(PolicyRefusal) {
                        let outcome = try engines[index].apply(
                            .importSettings(wanted[index]), credentials: Credentials(pin: pin), at: now
                        ).change!
                        let calendar = engines[index].readout.settings.calendar
                        changes.append(
                            Components.Schemas.ConfigurationImportResponse.PeoplePayloadPayload(
                                person: name, outcome: outcome, now: now, calendar: calendar))
                    } catch .pinRequired {
                        throw ControlFailure.refused(.pinRequired)
                    } catch {
                        throw invalid("people.\(name): \(error)")
                    }
                }
                // Checking only: the copies are dropped, and nothing changed.
                if checkOnly { throw CheckedOnly(changes: changes) }
                return changes
            }.result
        } catch let checked as CheckedOnly {
            return Components.Schemas.ConfigurationImportResponse(checked: true, people: checked.changes)
        } catch let error as StoreError {
            throw ControlFailure.storage("cannot store the import, so nothing changed: \(error)")
        }
        try? parts.propagation.propagate(savingAll: false)
        return Components.Schemas.ConfigurationImportResponse(checked: false, people: changes)
    }

    /// Devices are the config file's: an import must name the ones it gives (in any order).
    private func checkDevices(_ person: Components.Schemas.PersonConfiguration) throws {
        let configured = parts.household.configuredDevices(of: person.name)
        var named: [String] = []
        for text in person.devices {
            guard let device = DeviceSpec(text) else {
                throw invalid(
                    "people.\(person.name).devices: '\(text)' is no MAC address, address, network or id:CLIENTID")
            }
            named.append(device.clientName)
        }
        guard Set(named) == Set(configured) else {
            throw invalid(
                "people.\(person.name).devices: devices are changed in the config file, which gives "
                    + "[\(configured.joined(separator: ", "))], not [\(named.joined(separator: ", "))]")
        }
    }

    private func invalid(_ message: String) -> Components.Schemas.ErrorBody {
        Components.Schemas.ErrorBody(error: message, code: .invalidConfiguration)
    }
}

/// Ends a checking import's pass over the engines without keeping what it did.
private struct CheckedOnly: Error {
    let changes: [Components.Schemas.ConfigurationImportResponse.PeoplePayloadPayload]
}
