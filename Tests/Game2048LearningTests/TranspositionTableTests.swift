import Testing
@testable import Game2048Search

struct TranspositionTableTests {
    @Test func storesAndFindsByBoardAndDepth() {
        var table = TranspositionTable()
        table.clear()
        table.store(1.5, of: 0x1234, depth: 2)
        #expect(table.value(of: 0x1234, depth: 2) == 1.5)
        #expect(table.value(of: 0x1234, depth: 1) == nil)
        #expect(table.value(of: 0x1235, depth: 2) == nil)
    }

    @Test func clearingForgetsEverythingWithoutReallocating() {
        var table = TranspositionTable()
        table.clear()
        table.store(3, of: 42, depth: 1)
        let storage = table.entries.withUnsafeBufferPointer { $0.baseAddress }
        table.clear()
        #expect(table.value(of: 42, depth: 1) == nil)
        #expect(table.entries.withUnsafeBufferPointer { $0.baseAddress } == storage)
    }

    @Test func theGenerationWrapsWithoutResurrectingOldEntries() {
        var table = TranspositionTable()
        table.clear()
        table.store(7, of: 99, depth: 3)
        table.generation = (1 << 24) - 1
        table.store(8, of: 100, depth: 3)
        table.clear()
        #expect(table.generation == 1)
        #expect(table.value(of: 99, depth: 3) == nil)
        #expect(table.value(of: 100, depth: 3) == nil)
    }

    @Test func aFullNeighbourhoodOverwritesButNeverAnswersWrongly() {
        var table = TranspositionTable()
        table.clear()
        // Far more keys than slots: every answer must still be the value stored for that very key.
        let keys = (0..<UInt64(3 * TranspositionTable.entryCount)).map { $0 &* 0x9E37_79B9 }
        for key in keys { table.store(Float(key % 1000), of: key, depth: 1) }
        var found = 0
        for key in keys {
            if let value = table.value(of: key, depth: 1) {
                #expect(value == Float(key % 1000))
                found += 1
            }
        }
        #expect(found > 0 && found <= TranspositionTable.entryCount)
    }
}
