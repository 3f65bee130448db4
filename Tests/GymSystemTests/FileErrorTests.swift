import GymSystem
import Testing

struct FileErrorTests {
    @Test func describesTheOperationThePathAndTheReason() {
        #expect(
            FileError("write", "x.bin", reason: "No space left on device").description
                == "cannot write x.bin: No space left on device")
        #expect(FileError.describe("open", "curve.csv", "Permission denied") == "cannot open curve.csv: Permission denied")
    }

    @Test func takesTheReasonFromAnErrnoValue() {
        #expect(FileError("read", "/x", code: 2) == FileError("read", "/x", reason: "No such file or directory"))
        #expect(systemReason(21) == "Is a directory")
    }
}
