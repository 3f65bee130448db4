#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import GymSystem

// The state a signal handler needs to put the terminal back. Signal handlers
// cannot capture context, so it lives in globals, written only by the main
// thread before the handlers can run or while it owns the terminal.
nonisolated(unsafe) private var savedAttributes = termios()
/// The descriptor whose attributes were changed, or -1.
nonisolated(unsafe) private var rawDescriptor: Int32 = -1
/// 0: screen untouched; 1: cursor hidden; 2: cursor hidden on the alternate screen.
nonisolated(unsafe) private var screenMode: Int32 = 0
nonisolated(unsafe) private var screenDescriptor: Int32 = STDOUT_FILENO
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1
nonisolated(unsafe) private var signalsSeen: Int32 = 0
/// The first signal and when it came (monotonic nanoseconds): a repeat of it within a second is the same request.
nonisolated(unsafe) private var firstSignal: Int32 = 0
nonisolated(unsafe) private var firstSignalTime: Int64 = 0

/// Terminal control for `g2048 play` and `g2048 replay`: raw keyboard input, the
/// alternate screen, the cursor, and putting all of it back on every way out.
///
///     Terminal.installSignalHandlers()
///     Terminal.enterRawMode(STDIN_FILENO)          // non-canonical, no echo
///     Terminal.enterScreen(STDOUT_FILENO, alternate: true)
///     defer { Terminal.restore() }
///
/// Raw mode clears `ICANON` and `ECHO` (and `IXON`, `ICRNL`) with
/// `tcgetattr`/`tcsetattr`, keeping `ISIG` so Ctrl-C still raises SIGINT.
/// ``restore()`` is idempotent. On SIGINT, SIGTERM, SIGHUP or SIGPIPE (the reader of
/// stdout went away) the handler restores
/// the terminal at once (with async-signal-safe calls only) and wakes the main
/// loop through a pipe (``signalDescriptor``), which then saves and exits; a
/// second signal exits immediately.
package enum Terminal {
    /// The read end of the pipe the signal handler writes the signal number to, or -1 before ``installSignalHandlers()``.
    package private(set) nonisolated(unsafe) static var signalDescriptor: Int32 = -1

    /// Whether a descriptor is a terminal.
    package static func isTerminal(_ descriptor: Int32) -> Bool { SystemIO.isTerminal(descriptor) }

    /// Puts a terminal in non-canonical, no-echo mode (keys arrive one by one, unseen).
    ///
    /// - Returns: `false` when the descriptor is not a terminal or the change failed.
    @discardableResult
    package static func enterRawMode(_ descriptor: Int32) -> Bool {
        var attributes = termios()
        guard tcgetattr(descriptor, &attributes) == 0 else { return false }
        savedAttributes = attributes
        attributes.c_lflag &= ~tcflag_t(ICANON | ECHO)
        attributes.c_iflag &= ~tcflag_t(IXON | ICRNL)
        setControlCharacter(&attributes, VMIN, 1)
        setControlCharacter(&attributes, VTIME, 0)
        guard tcsetattr(descriptor, TCSAFLUSH, &attributes) == 0 else { return false }
        rawDescriptor = descriptor
        return true
    }

    /// Hides the cursor and, when `alternate`, switches to the alternate screen.
    package static func enterScreen(_ descriptor: Int32, alternate: Bool) {
        screenDescriptor = descriptor
        if alternate {
            SystemIO.writeStatic(descriptor, "\u{1B}[?1049h\u{1B}[?25l")
            screenMode = 2
        } else {
            SystemIO.writeStatic(descriptor, "\u{1B}[?25l")
            screenMode = 1
        }
    }

    /// Draws a frame's text over the previous one: cursor home, each line cleared to its end, the rest of the screen cleared.
    package static func redraw(_ descriptor: Int32, _ text: String) {
        var output = "\u{1B}[H"
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            output += line + "\u{1B}[K\n"
        }
        SystemIO.writeAll(descriptor, output + "\u{1B}[J")
    }

    /// Shows the cursor, leaves the alternate screen and restores the saved terminal attributes; safe to call twice.
    package static func restore() {
        restoreNow()
    }

    /// The restoring itself, with async-signal-safe calls only.
    fileprivate static func restoreNow() {
        switch screenMode {
        case 2: SystemIO.writeStatic(screenDescriptor, "\u{1B}[?25h\u{1B}[?1049l")
        case 1: SystemIO.writeStatic(screenDescriptor, "\u{1B}[?25h")
        default: break
        }
        screenMode = 0
        if rawDescriptor >= 0 {
            _ = tcsetattr(rawDescriptor, TCSANOW, &savedAttributes)
            rawDescriptor = -1
        }
    }

    /// Installs handlers for SIGINT, SIGTERM, SIGHUP and SIGPIPE that restore the terminal and wake the main loop.
    ///
    /// - Returns: the descriptor to watch (``signalDescriptor``), or -1 if no pipe could be made.
    @discardableResult
    package static func installSignalHandlers() -> Int32 {
        if signalDescriptor >= 0 { return signalDescriptor }
        guard let ends = SystemIO.makePipe() else { return -1 }
        signalPipeWriteEnd = ends.write
        signalDescriptor = ends.read
        let handled = [SIGINT, SIGTERM, SIGHUP, SIGPIPE]
        SystemProcess.unblock(handled)
        for number in handled {
            signal(number) { number in
                Terminal.restoreNow()
                var now = timespec()
                clock_gettime(CLOCK_MONOTONIC, &now)
                let nanoseconds = Int64(now.tv_sec) &* 1_000_000_000 &+ Int64(now.tv_nsec)
                // The same signal again within a second is one request seen twice, not a second one: `timeout`
                // and job control signal the process and then its group. The record still gets its end line.
                if signalsSeen > 0 && number == firstSignal && nanoseconds &- firstSignalTime < 1_000_000_000 { return }
                signalsSeen += 1
                if signalsSeen > 1 || signalPipeWriteEnd < 0 { _exit(128 + number) }
                (firstSignal, firstSignalTime) = (number, nanoseconds)
                SystemIO.writeByte(signalPipeWriteEnd, UInt8(truncatingIfNeeded: number))
            }
        }
        return signalDescriptor
    }

    /// The signal the handler reported, read from ``signalDescriptor``, or `nil`.
    package static func receivedSignal() -> Int32? {
        guard signalDescriptor >= 0, case .bytes(let bytes) = SystemIO.read(signalDescriptor, max: 16), let first = bytes.first else {
            return nil
        }
        return Int32(first)
    }
}

/// Sets one entry of a termios control-character array (`VMIN`, `VTIME`, …).
private func setControlCharacter(_ attributes: inout termios, _ index: Int32, _ value: UInt8) {
    withUnsafeMutableBytes(of: &attributes.c_cc) { bytes in
        if Int(index) < bytes.count { bytes[Int(index)] = value }
    }
}
