import Game2048
import GymPlay
import Testing

struct KeyTests {
    @Test(arguments: [
        ("up", Key.move(.up)), ("down", .move(.down)), ("left", .move(.left)), ("right", .move(.right)),
        ("w", .move(.up)), ("a", .move(.left)), ("s", .move(.down)), ("d", .move(.right)),
        ("h", .move(.left)), ("j", .move(.down)), ("k", .move(.up)), ("l", .move(.right)),
        ("r", .restart), ("restart", .restart), ("q", .quit), ("quit", .quit), ("enter", .confirm),
    ])
    func namesMapToKeys(name: String, key: Key) {
        #expect(Key(name: name) == key)
    }

    @Test func namesIgnoreCaseAndSurroundingBlanks() {
        #expect(Key(name: "  LEFT\r") == .move(.left))
        #expect(Key(name: "\tW ") == .move(.up))
    }

    @Test(arguments: ["", "north", "x", "upp", "0", "l l"])
    func otherNamesAreNotKeys(name: String) {
        #expect(Key(name: name) == nil)
    }
}
