import ContactsNamespace
import Foundation
import SyncKernel
import XCTest

final class ContactsNamespaceTests: XCTestCase {
    private let pubkey = TwoDevices.key32(0x33)

    private func contact(_ name: String, _ at: Double, local: String? = nil) -> ContactRecord {
        .contact(Contact(pubkey: pubkey, userIDHash: TwoDevices.key32(1), accountSigningPubkey: TwoDevices.key32(2),
                         channelKey: TwoDevices.key32(3), name: name, updatedAt: TwoDevices.at(at), systemContactIdentifier: local))
    }

    private func save(_ record: ContactRecord, _ store: KernelStore) throws {
        try store.write(ContactsNamespace.self) { tx throws(SyncKernelError) in try tx.save(record) }
    }

    /// The case the spec's guard existed for: a contact-only edit made without seeing a newer
    /// relationship change must not carry the stale relationship back.
    func testAContactOnlyEditNeverCarriesAStaleRelationship() throws {
        let pair = try TwoDevices()
        try save(contact("Sam", 10), pair.a)
        try save(.relationship(RelationshipState(pubkey: pubkey, stage: .connected, updatedAt: TwoDevices.at(10))), pair.a)
        try pair.sync(ContactsNamespace.self)
        try save(.relationship(RelationshipState(pubkey: pubkey, stage: .blocked, updatedAt: TwoDevices.at(20))), pair.b)
        try save(contact("Samantha", 30), pair.a)
        try pair.sync(ContactsNamespace.self)
        for store in [pair.a, pair.b] {
            let records = try store.rows(ContactsNamespace.self)
            XCTAssertTrue(records.contains(contact("Samantha", 30)), "the contact edit wins on its own row")
            XCTAssertTrue(records.contains(.relationship(RelationshipState(pubkey: pubkey, stage: .blocked,
                                                                           updatedAt: TwoDevices.at(20)))),
                          "the newer relationship survives the contact-only edit")
        }
        XCTAssertNotEqual(try pair.a.version(namespace: "contacts", key: ContactsNamespace.contactKey(pubkey))?.vector,
                          try pair.a.version(namespace: "contacts", key: ContactsNamespace.relationshipKey(pubkey))?.vector,
                          "two rows, two clocks")
        XCTAssertTrue(pair.agree(ContactsNamespace.self))
    }

    func testSystemContactIdentifierStaysOnItsDevice() throws {
        let pair = try TwoDevices()
        try save(contact("Sam", 10, local: "ab-1"), pair.a)
        try save(contact("Sam", 10, local: "xyz-9"), pair.b)
        XCTAssertTrue(pair.agree(ContactsNamespace.self))
        try save(contact("Sam B", 11, local: "xyz-9"), pair.b)
        try pair.sync(ContactsNamespace.self)
        guard case .contact(let onA)? = try pair.a.row(ContactsNamespace.self, key: ContactsNamespace.contactKey(pubkey)) else {
            return XCTFail("contact missing")
        }
        XCTAssertEqual(onA.name, "Sam B")
        XCTAssertEqual(onA.systemContactIdentifier, "ab-1")
    }

    func testAStaleAdvertisementNeverResurrectsADroppedDevice() throws {
        let pair = try TwoDevices()
        let (phone, tablet) = (PeerDeviceRoster.Device(key: [1], label: "phone"), PeerDeviceRoster.Device(key: [2], label: "tablet"))
        let both = PeerDeviceRoster(contactPubkey: pubkey, devices: [phone, tablet], lastAdvertisedAt: 100)
        let dropped = PeerDeviceRoster(contactPubkey: pubkey, devices: [phone], lastAdvertisedAt: 200)
        try pair.a.write(PeerDevicesNamespace.self) { tx throws(SyncKernelError) in try tx.receiveAdvertisement(both) }
        try pair.b.write(PeerDevicesNamespace.self) { tx throws(SyncKernelError) in try tx.receiveAdvertisement(dropped) }
        try pair.b.write(PeerDevicesNamespace.self) { tx throws(SyncKernelError) in try tx.receiveAdvertisement(both) }
        XCTAssertEqual(try pair.b.row(PeerDevicesNamespace.self, key: pubkey)?.devices, [phone], "late stale advertisement ignored")
        try pair.sync(PeerDevicesNamespace.self)
        for store in [pair.a, pair.b] {
            XCTAssertEqual(try store.row(PeerDevicesNamespace.self, key: pubkey)?.devices, [phone])
        }
        XCTAssertTrue(pair.agree(PeerDevicesNamespace.self))
    }
}
