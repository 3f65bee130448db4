import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Game2048
import GymPlay
import Testing
@testable import Game2048Network
@testable import Game2048Solver
@testable import Game2048Training
@testable import g2048
import TestSupport

struct TrainEvalCommandTests {
    static func train(_ arguments: [String]) throws -> TrainCommand { try TrainCommand(parseArguments(arguments, spec: TrainCommand.spec)) }
    static func eval(_ arguments: [String]) throws -> EvalCommand { try EvalCommand(parseArguments(arguments, spec: EvalCommand.spec)) }

    @Test func trainDefaultsToTenMinutesOfTheClassicBoard() throws {
        let command = try Self.train([])
        #expect(command.rules == Rules())
        #expect(command.seconds == 600 && command.games == nil)
        #expect(command.out == "weights-4x4.bin")
        #expect(command.alpha == 0.1 && command.threads == 1 && command.schedule == .forward)
        // Lanes default by board when the run starts: 2 where moves prefetch (4x4), 1 elsewhere.
        #expect(command.lanes == nil)
        #expect(try Self.train(["--lanes", "3"]).lanes == 3)
        #expect(command.restart == 0 && command.restartFrom == nil)
        // The documented largest chance and tile.
        let restarting = try Self.train(["--restart", "0.99", "--restart-from", "1125899906842624"])
        #expect(restarting.restart == 0.99 && restarting.restartFrom == 1 << 50)
        let short = try Self.train(["--games", "10", "--rows", "3"])
        #expect(short.seconds == nil && short.games == 10 && short.rules.cols == 3)
    }

    @Test(arguments: [
        (["--rows", "99"], "--rows must be an integer from 2 to 8, got 99"),
        (["--alpha", "0"], "--alpha must be a number from 1e-09 to 1.0, got 0"),
        (["--alpha", "2"], "--alpha must be a number from 1e-09 to 1.0, got 2"),
        (["--alpha", "nan"], "--alpha must be a finite number, got nan"),
        (["--seconds", "inf"], "--seconds must be a finite number, got inf"),
        (["--cols", "1"], "--cols must be an integer from 2 to 8, got 1"),
        (["--games", "99999999999999999999"], "--games must be an integer from 1 to 9223372036854775807, got 99999999999999999999"),
        (["--games", "0"], "--games must be an integer from 1 to 9223372036854775807, got 0"),
        (["--update", "sideways"], "--update must be one of forward, backward, got 'sideways'"),
        (["--patterns", "0,1,99"], "--patterns: pattern 1 has cell 99, outside a 4x4 board (cells 0...15)"),
        (["--resume", "w.bin", "--patterns", "0,1"], "--patterns cannot change a resumed network (the file has its own)"),
        (["--resume", "w.bin", "--optimistic", "0"], "--optimistic sets the weights of a new network; --resume w.bin continues the weights it holds"),
        (["--stages", "100"], "--stages takes tiles, powers of two from 4 to 32768 on a 4x4 board, separated by commas; got '100' in '100'"),
        (["--stages", "65536"], "--stages takes tiles, powers of two from 4 to 32768 on a 4x4 board, separated by commas; got '65536' in '65536'"),
        (["--stages", "16384,"], "--stages takes tiles, powers of two from 4 to 32768 on a 4x4 board, separated by commas; got '' in '16384,'"),
        (["--stages", "32768,16384"], "--stages 32768,16384: stage thresholds must ascend: 2^14 after 2^15"),
        (["--learning", "sgd"], "--learning must be one of td, tc, otd+tc, got 'sgd'"),
        (["--learning", "tc", "--alpha", "0.1"], "--alpha is TD's learning rate; --learning tc uses --tc-alpha"),
        (["--tc-from", "2"], "--tc-from must be a number from 0.0 to 1.0, got 2"),
        (["--network", "9x6"], "--network must be one of 4x6, 5x6, 8x6, got '9x6'"),
        (["--network", "8x6", "--rows", "3"], "--network 8x6 is a network for 4x4 boards, not 3x3; give other boards --patterns"),
        (["--network", "8x6", "--patterns", "0,1"], "--network and --patterns both choose the patterns; give one"),
        (["--network", "8x6", "--resume", "w.bin"], "--network cannot change a resumed network (--resume w.bin has its own)"),
        (["--tc-alpha", "0"], "--tc-alpha must be a number from 1e-09 to 1.0, got 0"),
        (["--tc-alpha", "10"], "--tc-alpha must be a number from 1e-09 to 1.0, got 10"),
        (["--lanes", "0"], "--lanes must be an integer from 1 to 64, got 0"),
        (["--restart", "1"], "--restart must be a number from 0.0 to 0.99, got 1"),
        (["--restart-from", "2"], "--restart-from must be an integer from 4 to 1125899906842624, got 2"),
        (["--restart-from", "2251799813685248"], "--restart-from must be an integer from 4 to 1125899906842624, got 2251799813685248"),
        (["--lanes", "65"], "--lanes must be an integer from 1 to 64, got 65"),
        (["--table-share", "2"], "--table-share must be a number from 0.0 to 1.0, got 2"),
        (["--table-learning", "dp"], "--table-learning must be one of sweep, games, got 'dp'"),
        (
            ["--table-share", "0.5"],
            "--table-share: an afterstate table is for boards of up to 9 cells (2x4, 3x3 and smaller); a 4x4 network learns alone"
        ),
        (
            ["--rows", "3", "--table-share", "0.5", "--max-steps", "100"],
            "--table-share: the afterstate table is learned by the solver's equations, which do not model this game: "
                + "it plays each game to its end: a step limit (max_steps)"
        ),
    ])
    func trainRejectsBadOptions(arguments: [String], message: String) {
        #expect(throws: UsageError(message)) { try Self.train(arguments) }
    }

    @Test(arguments: [
        (["--agent", "ntuple"], "--agent ntuple needs --weights <file>"),
        (["--agent", "genius"], "--agent must be one of random, greedy, montecarlo, expectimax, ntuple, optimal, got 'genius'"),
        (["--agent", "random", "--rows", "9"], "--rows must be an integer from 2 to 8, got 9"),
        (["--agent", "random", "--win-tile", "3"], "--win-tile must be a power of two from 4 to 2^50 or off, got 3"),
        (["--agent", "greedy", "--depth", "2"], "--depth applies to the expectimax and ntuple players, not greedy"),
        (
            ["--weights", "w.bin", "--agent", "random"],
            "--weights is only used by --agent ntuple, which searches with the network when given --depth N "
                + "(expectimax over N spawn layers); --agent random plays without it"
        ),
        (
            ["--weights", "w.bin", "--agent", "expectimax"],
            "--weights is only used by --agent ntuple, which searches with the network when given --depth N "
                + "(expectimax over N spawn layers); --agent expectimax plays without it"
        ),
        (["--games", "0"], "--games must be an integer from 1 to 10000000, got 0"),
        (["--depth", "5"], "--depth must be an integer from 0 to 4, got 5"),
        (["--nodes", "0"], "--nodes must be an integer from 1 to 10000000, got 0"),
        (["--agent", "random", "--nodes", "10"], "--nodes applies to the expectimax and ntuple players, not random"),
        (["--prune", "1.5"], "--prune must be a number from 0.0 to 1.0, got 1.5"),
        (["--prune", "x"], "--prune must be a number, got 'x'"),
        (["--agent", "greedy", "--prune", "0.1"], "--prune applies to the expectimax and ntuple players, not greedy"),
        (["--weights", "w.bin", "--downgrade", "3000"], "--downgrade must be on, off or a power of two from 8 to 32768, got '3000'"),
        (["--weights", "w.bin", "--downgrade", "65536"], "--downgrade must be on, off or a power of two from 8 to 32768, got '65536'"),
        (["--weights", "w.bin", "--downgrade", "4"], "--downgrade must be on, off or a power of two from 8 to 32768, got '4'"),
        (["--weights", "w.bin", "--downgrade", "0"], "--downgrade must be on, off or a power of two from 8 to 32768, got '0'"),
        (["--agent", "expectimax", "--downgrade", "on"], "--downgrade applies to the network's search (--agent ntuple), not expectimax"),
    ])
    func evalRejectsBadOptions(arguments: [String], message: String) {
        #expect(throws: UsageError(message)) { try Self.eval(arguments) }
    }

    /// The default optimism once was 80 000 on every board, which slowed 3×3 learning down (greedy 1 516 against 2 152).
    @Test(arguments: [(2, 2, 1_000.0), (2, 4, 1_000.0), (3, 3, 10_000.0), (3, 4, 10_000.0), (4, 4, 80_000.0), (8, 8, 80_000.0)])
    func optimismDependsOnTheBoardSize(rows: Int, cols: Int, optimism: Double) throws {
        #expect(try Self.train(["--rows", "\(rows)", "--cols", "\(cols)"]).optimism == optimism)
        #expect(try Self.train(["--rows", "\(rows)", "--cols", "\(cols)", "--optimistic", "5"]).optimism == 5)
    }

    /// A restart tile is a tile: refused before the first game; a run that restarts says so when it starts, and
    /// writes weights that play.
    @Test func restartsAreAnnouncedAndTheirTileChecked() throws {
        let folder = TemporaryDirectory()
        let weights = folder.file("w.bin")
        let refused = try G2048Tests.run(["train", "--rows", "3", "--games", "10", "--restart-from", "96", "--out", weights])
        #expect(refused.status != 0 && refused.stderr.contains("--restart-from must be a power of two, got 96"), "\(refused.stderr)")
        let run = try G2048Tests.run([
            "train", "--rows", "3", "--patterns", G2048Tests.smallPatterns, "--table-share", "0", "--games", "300", "--restart", "0.5",
            "--restart-from", "64", "--out", weights,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains(", 50 % of ended games restarted from their largest tile (from 64), "), "\(run.stderr)")
        #expect(try G2048Tests.run(["eval", "--weights", weights, "--games", "3"]).status == 0)
    }

    /// Unless asked for, a sweep is not begun when the run's clock leaves the table less time than a sweep of
    /// the board takes: it would be cut before its first value, where games teach the table something. The run
    /// says so, and how to ask for the sweep anyway.
    @Test func aRunTooShortForTheSweepLearnsItsTableFromGames() throws {
        let folder = TemporaryDirectory()
        let weights = folder.file("w.bin")
        let short = try G2048Tests.run(["train", "--rows", "3", "--patterns", G2048Tests.smallPatterns, "--seconds", "1", "--out", weights])
        #expect(short.status == 0, "\(short.stderr)")
        let expected = String(format: "%.0f", AfterstateSweep.expectedSeconds(rules: try Rules(rows: 3, cols: 3)))
        #expect(
            short.stderr.contains(
                "the afterstate table learns 80 % of the run from games, on one thread (a sweep of 3x3 takes about \(expected) s, more "
                    + "than the table's 0.8 s: --table-learning sweep asks for it)"), "\(short.stderr)")
        #expect(short.stderr.contains("learning the afterstate table from game") && !short.stderr.contains("valuing every afterstate"))
        // A run with time enough for the sweep, or with no clock, sweeps.
        let rules = try Rules(rows: 3, cols: 3)
        #expect(TableLearning.default(rules: rules, seconds: nil) == .sweep)
        #expect(TableLearning.default(rules: rules, seconds: 480) == .sweep)
        #expect(TableLearning.default(rules: rules, seconds: 8) == .games)
        #expect(TableLearning.default(rules: try Rules(rows: 2, cols: 4), seconds: 8) == .sweep)
    }

    /// By default a small board's table is swept after the network: every afterstate a game reaches, valued
    /// exactly, and the run ends there, its greedy player optimal by `g2048 eval --exact`. A resumed file sweeps
    /// again; a sweep cut short by the clock says so, and the network is saved.
    @Test func aSmallBoardsTableIsSweptAndItsPlayerIsOptimal() throws {
        let folder = TemporaryDirectory()
        let (weights, solution) = (folder.file("w.bin"), folder.file("s.bin"))
        #expect(try G2048Tests.run(["solve", "--rows", "2", "--cols", "3", "--out", solution]).status == 0)
        let first = try G2048Tests.run(["train", "--rows", "2", "--cols", "3", "--games", "1000", "--out", weights, "--solution", solution])
        #expect(first.status == 0, "\(first.stderr)")
        for line in [
            "then every afterstate of the table is valued exactly, within 80 % of the run",
            "valuing every afterstate of 2x3 exactly: one backward sweep of dynamic programming on 1 thread",
            "valued 14883 afterstates exactly in", "nothing is left to learn, so the run ends here",
        ] {
            #expect(first.stderr.contains(line), "\(first.stderr)")
        }
        #expect(first.stdout.contains("wrote \(weights): 200 games"), "\(first.stdout)")
        #expect(first.stdout.contains("the network's games before the sweep"), "\(first.stdout)")
        #expect(first.stdout.contains("greedy play of \(weights) is optimal play, an expected score of 480.26"), "\(first.stdout)")
        #expect(try #require(try WeightsFile.load(from: weights).network.afterstates).count == 14_883)
        let exact = try G2048Tests.run(["eval", "--exact", "--solution", solution, "--weights", weights, "--json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(exact.stdout.utf8)) as? [String: Any])
        let fraction = try #require(report["fraction_of_optimal"] as? Double)
        #expect(fraction > 0.999_999 && report["suboptimal_states"] as? Int == 0, "\(exact.stdout)")
        let resumed = try G2048Tests.run(["train", "--resume", weights, "--games", "2000", "--threads", "2"])
        #expect(resumed.status == 0 && resumed.stderr.contains("valued 14883 afterstates exactly"), "\(resumed.stderr)")
        #expect(try #require(try WeightsFile.load(from: weights).network.afterstates).count == 14_883)
        // 3x3's boards take seconds to enumerate: a sweep asked of a run of a fraction of one is cut, and keeps its file.
        let cut = try G2048Tests.run(["train", "--rows", "3", "--seconds", "0.3", "--table-learning", "sweep", "--out", weights, "--force"])
        #expect(cut.status == 0 && cut.stderr.contains("the sweep stopped after"), "\(cut.stderr)")
        #expect(cut.stderr.contains("'g2048 train --resume \(weights)' sweeps again"), "\(cut.stderr)")
        #expect(try WeightsFile.load(from: weights).network.rows == 3)
        let alone = try G2048Tests.run([
            "train", "--rows", "2", "--games", "10", "--table-share", "0", "--table-learning", "games", "--out", weights, "--force",
        ])
        #expect(alone.status == 64)
        #expect(alone.stderr.contains("--table-learning games: this 2x2 run learns no afterstate table (--table-share 0)"), "\(alone.stderr)")
        let large = try G2048Tests.run(["train", "--rows", "4", "--games", "10", "--table-learning", "sweep", "--out", weights, "--force"])
        #expect(large.status == 64)
        #expect(
            large.stderr.contains("--table-learning sweep: this 4x4 run learns no afterstate table (a table is for boards of up to 9 cells)"),
            "\(large.stderr)")
    }

    /// `train` under a memory limit trained its network, then its table sweep aborted allocating (no weights file,
    /// no rescue file, a stale `.lock`): the sweep's memory is checked before the first game. Asked for, a sweep
    /// that cannot fit is refused; by default the table learns from games instead, and the run says why.
    @Test func aSweepThatCannotFitInMemoryIsRefusedBeforeTraining() throws {
        let folder = TemporaryDirectory()
        let run = "ulimit -v 200000; exec \"$0\" train --rows 2 --cols 4 --patterns '\(G2048Tests.smallPatterns)' --games 100 --out \"$1\""
        let (status, stderr) = try G2048Tests.runInShell(run + " --table-learning sweep", [folder.file("w.bin")])
        #expect(status == 1, "\(stderr)")
        #expect(stderr.hasPrefix("error: --table-learning sweep: a sweep of 2x4 needs about 258 MiB of memory (estimated), and "), "\(stderr)")
        #expect(
            stderr.hasSuffix(
                " more (its address-space limit, ulimit -v), 216 MiB of it for the stacks and allocator arenas of the 3 threads it starts; "
                    + "nothing was trained (--table-learning games needs less)\n"), "\(stderr)")
        #expect(folder.names.isEmpty)
        // Between the estimate and the need (410 to 500 MB, where the table's reservation and the threads' arenas
        // were not counted) the check passed and the sweep aborted after valuing every afterstate: every limit now
        // sweeps or is refused, and leaves no lock. Up to the first limit that sweeps, the tightest (a sweep of 2x4
        // takes a minute and a half in a debug build, and more room cannot make it fail); then, finely, a 2x3
        // sweep, which takes a second, at every 4 MB across its own estimate.
        let sweeps = [
            (
                board: "2x4", flags: "--rows 2 --cols 4 --patterns '\(G2048Tests.smallPatterns)'",
                limits: Array(stride(from: 400_000, through: 600_000, by: 50_000))
            ),
            (board: "2x3", flags: "--rows 2 --cols 3", limits: Array(stride(from: 220_000, through: 300_000, by: 4_000))),
        ]
        for (board, flags, limits) in sweeps {
            var outcomes: Set<Int32> = []
            for limit in limits {
                let sweep = try G2048Tests.runInShell(
                    "ulimit -v \(limit); exec \"$0\" train \(flags) --games 100 --force --table-learning sweep --out \"$1\"", [folder.file("s.bin")])
                #expect(
                    sweep.status == 0 || (sweep.status == 1 && sweep.stderr.hasPrefix("error: --table-learning sweep: a sweep of \(board)")),
                    "\(board) under \(limit): \(sweep.stderr.suffix(300))")
                #expect(!folder.names.contains("s.bin.lock"), "\(board) under \(limit)")
                outcomes.insert(sweep.status)
                if sweep.status == 0 && board == "2x4" { break }
            }
            #expect(outcomes == [0, 1], "\(board): the limits should straddle the estimate")
        }
        try? FileManager.default.removeItem(atPath: folder.file("s.bin"))
        let (fallback, said) = try G2048Tests.runInShell(run, [folder.file("w.bin")])
        #expect(fallback == 0, "\(said)")
        #expect(said.contains("the afterstate table learns 80 % of the run from games, on one thread (a sweep of 2x4 needs about 258 MiB"), "\(said)")
        #expect(
            said.contains(" more (its address-space limit, ulimit -v), 216 MiB of it for the stacks and allocator arenas of the 3 threads it starts)\n"),
            "\(said)")
        #expect(try #require(try WeightsFile.load(from: folder.file("w.bin")).network.afterstates).count > 0)
        #expect(folder.names == ["w.bin"])
    }

    /// A new network, or its learner's accumulators, past what the process may map stopped `train` at its start
    /// ("Fatal error: out of memory: cannot allocate 150 MiB of network weights", SIGILL, the accumulators of
    /// temporal coherence), the `.lock` of its output left behind. They are refused from their size, before
    /// either is allocated, in one line with the limit; nothing is left in the folder.
    @Test func aNetworkBeyondMemoryIsRefusedBeforeTraining() throws {
        let folder = TemporaryDirectory()
        let (status, stderr) = try G2048Tests.runInShell(
            "ulimit -v 150000; exec \"$0\" train --rows 3 --cols 3 --games 10 --out \"$1\"", [folder.file("w.bin")])
        #expect(status == 1, "\(stderr)")
        #expect(stderr.hasPrefix("error: a new 3x3 network with its learner needs 230 MiB of memory, and this process may map only "), "\(stderr)")
        #expect(
            stderr.hasSuffix(
                " more (its address-space limit, ulimit -v), 144 MiB of it for the stacks and allocator arenas of the 2 threads it starts; nothing was trained\n"
            ),
            "\(stderr)")
        #expect(folder.names.isEmpty)
    }

    /// A sweep that failed (an allocation past a limit) took the network's games with it: the network is saved
    /// before the sweep begins, so a run stopped during it (here by SIGKILL) keeps them.
    @Test func theNetworkIsSavedBeforeTheSweep() throws {
        let folder = TemporaryDirectory()
        let weights = folder.file("w.bin")
        let result = try Self.interruptedTraining(
            ["train", "--rows", "2", "--cols", "4", "--patterns", G2048Tests.smallPatterns, "--games", "200", "--threads", "1", "--out", weights],
            signal: SIGKILL
        ) { FileManager.default.fileExists(atPath: weights) }
        #expect(result.status == SIGKILL, "\(result.stderr)")
        let (network, metadata) = try WeightsFile.load(from: weights)
        #expect(metadata.games == 40 && (network.afterstates?.count ?? 0) == 0, "\(metadata.games) games, \(network.afterstates?.count ?? -1) afterstates")
    }

    /// With `--table-learning games` the run learns the network, then its afterstate table from the player's games;
    /// the file keeps the table, eval reads it, and a resumed file with a table learns only the table.
    @Test func aSmallBoardLearnsItsAfterstateTableAfterTheNetwork() throws {
        let folder = TemporaryDirectory()
        let weights = folder.file("w.bin")
        let first = try G2048Tests.run(["train", "--rows", "2", "--games", "400", "--table-learning", "games", "--out", weights])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("the afterstate table learns 80 % of the run from games, on one thread"), "\(first.stderr)")
        #expect(first.stderr.contains("learning the afterstate table from game 80 (0 afterstates so far"), "\(first.stderr)")
        let table = try #require(try WeightsFile.load(from: weights).network.afterstates)
        #expect(table.count > 10 && first.stdout.contains("400 games") && first.stdout.contains("a table of \(table.count) afterstates"))
        let evaluated = try G2048Tests.run(["eval", "--weights", weights, "--games", "5", "--threads", "1"])
        #expect(evaluated.stderr.contains("1 patterns, a table of \(table.count) afterstates, trained 400 games"), "\(evaluated.stderr)")
        let refused = try G2048Tests.run(["train", "--resume", weights, "--games", "500", "--table-share", "0.5"])
        #expect(refused.status == 64)
        #expect(
            refused.stderr.contains(
                "--table-share 0.50: --resume \(weights) holds an afterstate table (\(table.count) afterstates), over which its network "
                    + "no longer learns, so the whole run learns the table; leave --table-share out"), "\(refused.stderr)")
        let resumed = try G2048Tests.run(["train", "--resume", weights, "--games", "500", "--table-learning", "games"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stderr.contains("learning the afterstate table from game 400 (\(table.count) afterstates so far"), "\(resumed.stderr)")
        #expect(try WeightsFile.load(from: weights).metadata.games == 500)
        // Without a table, a file is written as before.
        let alone = try G2048Tests.run(["train", "--rows", "2", "--games", "100", "--table-share", "0", "--out", weights, "--force"])
        #expect(alone.status == 0 && !alone.stderr.contains("afterstate") && !alone.stdout.contains("table"), "\(alone.stderr)")
        #expect(try WeightsFile.load(from: weights).network.afterstates == nil)
    }

    @Test func aResumedRunWritesBackToItsFile() throws {
        let command = try Self.train(["--resume", "w3.bin"])
        #expect(command.out == "w3.bin" && command.size == nil)
        #expect(try Self.train(["--resume", "w3.bin", "--out", "next.bin"]).out == "next.bin")
    }

    /// `--alpha 2` … `10` ran to the end and then failed to save (`weight 0 is -nan`), losing the
    /// run. A rate that large is refused now; a file that carries one (written by an older version)
    /// diverges, and training stops at once, saying so, and leaves the file as it was.
    @Test func divergenceStopsTrainingAndKeepsTheFile() throws {
        let folder = TemporaryDirectory()
        let weights = folder.file("w.bin")
        // Without a table: a file with one learns only its table, which has no rate to diverge by.
        let first = try G2048Tests.run(["train", "--rows", "2", "--games", "50", "--table-share", "0", "--out", weights])
        #expect(first.status == 0, "\(first.stderr)")
        var (network, metadata) = try WeightsFile.load(from: weights)
        metadata.alpha = 8
        try WeightsFile.save(network, metadata: metadata, to: weights)
        let before = try Data(contentsOf: URL(fileURLWithPath: weights))
        let run = try G2048Tests.run(["train", "--resume", weights, "--games", "100000"])
        #expect(run.status == 1)
        #expect(
            run.stderr.contains(
                "a value became infinite or NaN, so the learning rate is too large for this network (try a smaller --alpha or --tc-alpha); \(weights) is left as it was"
            ), "\(run.stderr)")
        #expect(run.stderr.contains("error: training diverged at game "))
        #expect(try Data(contentsOf: URL(fileURLWithPath: weights)) == before)
        network = try WeightsFile.load(from: weights).network
        #expect(network.rows == 2)
    }

    /// Training plays by the rules its flags give (the environment's own episode rules), the weights file
    /// records them, `--resume` continues under them, and eval plays by them, noting a flag that changes one.
    /// (Before, the learner restated the rules: an option it did not know was ignored without a word.)
    @Test func rulesFlagsReachTheLearnerTheFileAndEval() throws {
        let folder = TemporaryDirectory()
        let weights = folder.file("w.bin")
        let train = try G2048Tests.run(
            [
                "train", "--rows", "3", "--patterns", G2048Tests.smallPatterns, "--games", "200", "--max-steps", "40", "--win-tile", "64", "--threads", "1",
                "--out", weights,
            ])
        #expect(train.status == 0, "\(train.stderr)")
        let (_, metadata) = try WeightsFile.load(from: weights)
        #expect(metadata.trainedRules == (try Rules(rows: 3, cols: 3, winTile: 64, maxSteps: 40)))
        // No game went past the step limit: 200 games of at most 40 moves.
        #expect(metadata.moves <= 200 * 40 && metadata.games == 200)
        let same = try G2048Tests.run(["eval", "--weights", weights, "--games", "20", "--threads", "1", "--json"])
        #expect(same.status == 0 && !same.stderr.contains("note:"), "\(same.stderr)")
        let other = try G2048Tests.run(["eval", "--weights", weights, "--games", "20", "--threads", "1", "--max-steps", "off"])
        #expect(
            other.stderr.contains("note: the network plays under other rules than it was trained under: max_steps off (trained with 40)"),
            "\(other.stderr)")
        let resumed = try G2048Tests.run(["train", "--resume", weights, "--games", "10", "--win-tile", "128"])
        #expect(resumed.status == 64)
        #expect(resumed.stderr.contains("error: --win-tile differs from --resume \(weights), whose games were played with win_tile 64"))
        let bad = try G2048Tests.run(["train", "--games", "10", "--max-steps", "0", "--out", folder.file("x.bin")])
        #expect(bad.status == 64 && bad.stderr.contains("error: --max-steps must be at least 1 or off, got 0"))
    }

    /// `train` on a file system without room for its weights trained for all of --seconds and only then failed to
    /// save: the room (and `ulimit -f`) is checked before the first game.
    @Test func noRoomForTheWeightsIsSaidBeforeTraining() throws {
        let folder = TemporaryDirectory()
        let started = Date()
        // 5 MB of file size (sh counts 512-byte blocks): one 7-tuple on 3x3, 74 MiB of weights, and the table its sweep
        // fills, 360 MiB, cannot be written.
        let (status, stderr) = try G2048Tests.runInShell(
            "ulimit -f 10000; exec \"$0\" train --rows 3 --patterns 0,1,2,3,4,5,6 --seconds 600 --out \"$1\"", [folder.file("w.bin")])
        #expect(status == 1, "\(stderr)")
        #expect(stderr.hasPrefix("error: --out \(folder.file("w.bin")) needs 434 MiB and only 4.9 MiB can be written there"), "\(stderr)")
        #expect(stderr.hasSuffix("write it on another disk\n") && Date().timeIntervalSince(started) < 60, "\(stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("w.bin")))
    }

    /// A save that fails at the end of a run (the folder went away, a disk filled) keeps the weights in a rescue
    /// file and names it, rather than losing the run.
    @Test func aFailedFinalSaveRescuesTheWeights() throws {
        let folder = TemporaryDirectory()
        let target = folder.file("gone")
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false)
        let rescue = folder.file("rescue")
        try FileManager.default.createDirectory(atPath: rescue, withIntermediateDirectories: false)
        let process = Process()
        process.executableURL = G2048Tests.executable
        process.arguments = [
            "train", "--rows", "3", "--patterns", G2048Tests.smallPatterns, "--seconds", "1.5", "--table-learning", "games", "--out", target + "/w.bin",
        ]
        process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": rescue]) { $1 }
        let err = Pipe()
        process.standardError = err
        try process.run()
        usleep(500_000)
        try FileManager.default.removeItem(atPath: target)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 1, "\(stderr)")
        let saved = try FileManager.default.contentsOfDirectory(atPath: rescue)
        #expect(saved.count == 1 && saved[0].hasPrefix("g2048-rescued-weights-"), "\(saved)")
        #expect(stderr.contains("the weights were saved to \(rescue)/\(saved.first ?? "")"), "\(stderr)")
        let (network, _) = try WeightsFile.load(from: rescue + "/" + (saved.first ?? ""))
        #expect(network.rows == 3)
    }

    /// Under `ulimit -v`, weights larger than the process may still map stopped it (`Fatal error:
    /// out of memory`, SIGILL); the load refuses them with the limit named, and exits 1.
    @Test func weightsBeyondTheAddressSpaceLimitAreRefused() throws {
        let folder = TemporaryDirectory()
        let weights = folder.file("w7.bin")  // one 7-tuple on 3x3: 74 MiB of weights
        let trained = try G2048Tests.run([
            "train", "--rows", "3", "--patterns", "0,1,2,3,4,5,6", "--games", "1", "--table-share", "0", "--out", weights,
        ])
        #expect(trained.status == 0, "\(trained.stderr)")
        // 58 MiB of address space: room for the program, not for its weights.
        let (status, stderr) = try G2048Tests.runInShell("ulimit -v 60000; exec \"$0\" eval --weights \"$1\" --games 1", [weights])
        #expect(status == 1, "\(stderr)")
        #expect(stderr.hasPrefix("error: \(weights): the header says 1 pattern of 7 cells, 78 MiB to load; this process may map only "))
        #expect(stderr.hasSuffix(" more (its address-space limit, ulimit -v)\n"), "\(stderr)")
    }

    /// Weights carrying a table hold more while they load than the weights and the filled table: the table's
    /// bytes as read, and the table's slots as they grow. Counted short, a limit between the two stopped the
    /// process (`failed to allocate`, SIGABRT). Under limits from below the count to above it, each run now
    /// loads or is refused with the limit named; none stops.
    @Test func weightsWithATableUnderAnyAddressSpaceLimitLoadOrAreRefused() throws {
        let folder = TemporaryDirectory()
        let weights = folder.file("table.bin")
        // A million afterstates of 2x4 (tiles up to 128, each its class's smallest), on two small tuples.
        let network = NTupleNetwork(
            rows: 2, cols: 4, patterns: [TuplePattern(cells: [0, 1, 2, 3]), TuplePattern(cells: [4, 5, 6, 7])],
            afterstates: AfterstateTable(rows: 2, cols: 4))
        let table = try #require(network.afterstates)
        var code: UInt64 = 1
        while table.count < 1_000_000 {
            var key: UInt64 = 0
            for cell: UInt64 in 0..<8 { key |= ((code >> (3 * cell)) & 7) << (4 * cell) }
            if table.canonical(key) == key { table.set(canonical: key, to: 1) }
            code += 1
        }
        try WeightsFile.save(network, metadata: TrainingMetadata(games: 1), to: weights)
        let eval = "exec \"$0\" eval --weights \"$1\" --games 1 --threads 1"
        // What the program maps before it loads: the limit less what the refusal says is left.
        let probe = try G2048Tests.runInShell("ulimit -v 30000; " + eval, [weights])
        let left = try #require(
            probe.stderr.split(separator: " may map only ").last?.split(separator: " ").first.flatMap { Double($0) }, "\(probe.stderr)")
        #expect(probe.status == 1 && probe.stderr.contains(" MiB more (its address-space limit"), "\(probe.stderr)")
        let base = 30000 / 1024 - left
        // The weights and a full table of 2^21 slots (32 MiB) were all the count knew; the load held 28 MB more.
        let counted = Double(network.weights.count * 4 >> 20) + 32
        var loaded = false
        for extra in stride(from: 0.0, through: 40, by: 10) {
            let limit = Int((base + counted + 4 + extra) * 1024)
            let run = try G2048Tests.runInShell("ulimit -v \(limit); " + eval, [weights])
            #expect(
                run.status == 0 || (run.status == 1 && run.stderr.hasSuffix(" more (its address-space limit, ulimit -v)\n")),
                "ulimit -v \(limit): \(run.status) \(run.stderr.prefix(300))")
            loaded = loaded || run.status == 0
        }
        #expect(loaded)
    }

    /// `train --resume /dev/zero` once said "--out /dev/zero is …" though no --out was typed.
    @Test func aWrongResumedFileIsNamedByTheFlagTyped() throws {
        let run = try G2048Tests.run(["train", "--resume", "/dev/zero"])
        #expect(run.status == 1)
        #expect(run.stderr == "error: --resume /dev/zero is a character device, not a regular file; refusing to write to it\n")
        let named = try G2048Tests.run(["train", "--resume", "/dev/zero", "--out", "/dev/null"])
        #expect(named.stderr == "error: --out /dev/null is a character device, not a regular file; refusing to write to it\n")
    }

    @Test func stagesAndLearningParse() throws {
        let command = try Self.train(["--stages", "16384,32768", "--learning", "otd+tc", "--tc-from", "0.25", "--tc-alpha", "0.5"])
        #expect(command.stages == [14, 15] && command.learning == .otdThenTC && command.coherenceFrom == 0.25 && command.coherenceAlpha == 0.5)
        #expect(try Self.train(["--rows", "5", "--stages", "131072"]).stages == [17])
        // Pure TC starts from zero weights; OTD+TC from the optimistic default.
        #expect(try Self.train(["--learning", "tc"]).optimism == 0)
        #expect(try Self.train(["--learning", "otd+tc"]).optimism == 80_000)
    }

    /// `--network 8x6` trains the eight 6-tuples on the packed path, and the file plays.
    @Test func theEightSixTupleNetworkTrainsAndPlays() throws {
        #expect(try Self.train(["--network", "5x6"]).patterns?.count == 5)
        let folder = Folder()
        let weights = folder.path + "/w8.bin"
        let trained = try G2048Tests.run(["train", "--network", "8x6", "--games", "100", "--out", weights])
        #expect(trained.status == 0, "\(trained.stderr)")
        #expect(trained.stderr.contains("8 patterns × 8 symmetries, 134217728 weights (512 MiB)"))
        let (network, _) = try WeightsFile.load(from: weights)
        #expect(network.patterns == TuplePattern.named("8x6") && network.readsBitboards)
        let played = try G2048Tests.run(["eval", "--weights", weights, "--games", "10", "--json"])
        #expect(played.status == 0, "\(played.stderr)")
    }

    /// `--stage-boards downgraded`: refused without stages; with them, recorded, announced, continued by a resume,
    /// and played by eval with no downgrading tile recorded from the first threshold up.
    @Test func downgradedStageBoardsTrainResumeAndEvaluate() throws {
        let folder = Folder()
        let weights = folder.path + "/w.bin"
        let alone = try G2048Tests.run(["train", "--stage-boards", "downgraded", "--games", "10", "--out", weights])
        #expect(alone.status == 64)
        #expect(alone.stderr.hasPrefix("error: --stage-boards downgraded reads the boards of the stages past the first; it needs --stages\n"))
        let unknown = try G2048Tests.run(["train", "--stages", "256", "--stage-boards", "halved", "--games", "10", "--out", weights])
        #expect(unknown.status == 64 && unknown.stderr.contains("halved"), "\(unknown.stderr)")
        let trained = try G2048Tests.run([
            "train", "--stages", "256,512", "--stage-boards", "downgraded", "--games", "1200", "--out", weights,
        ])
        #expect(trained.status == 0, "\(trained.stderr)")
        #expect(trained.stderr.contains("in 3 stages from 256,512 (their boards downgraded)"))
        let (network, metadata) = try WeightsFile.load(from: weights)
        #expect(network.stageBoards == .downgraded && network.stageThresholds == [8, 9] && network.promoted.first == true)
        // Its last games reach 256 in more than a third, which a plain network would record as its tile.
        #expect(metadata.downgradeLimit == nil, "\(String(describing: metadata.downgradeLimit))")
        let resumed = try G2048Tests.run(["train", "--resume", weights, "--stage-boards", "downgraded", "--games", "1300"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try WeightsFile.load(from: weights).network.stageBoards == .downgraded)
        let played = try G2048Tests.run(["eval", "--weights", weights, "--games", "20", "--depth", "1", "--json"])
        #expect(played.status == 0, "\(played.stderr)")
    }

    /// Each method with stages, end to end: the file records them, a resume continues them, and eval plays.
    @Test(arguments: [(4, "otd+tc"), (3, "tc"), (3, "td")])
    func stagedMethodsTrainResumeAndEvaluate(size: Int, method: String) throws {
        let folder = Folder()
        let weights = folder.path + "/w.bin"
        let stages = size == 4 ? "256,512" : "128,256"
        // 3x3's table from games: a sweep takes minutes in a debug build.
        let table = size == 4 ? [] : ["--table-learning", "games"]
        let trained = try G2048Tests.run(
            [
                "train", "--rows", "\(size)", "--patterns", "0,1,2;3,4,5", "--stages", stages,
                "--learning", method, "--games", "300", "--tc-from", "0.5", "--out", weights,
                "--plot", folder.path + "/curve.svg", "--metrics-every", "50",
            ] + table)
        #expect(trained.status == 0, "\(trained.stderr)")
        #expect(trained.stderr.contains("in 3 stages from \(stages)"))
        // Two lanes by default where moves prefetch (the packed 4x4 board), one elsewhere.
        #expect(trained.stderr.contains(size == 4 ? "1 thread × 2 lanes" : "1 thread × 1 lane,"))
        #expect(trained.stderr.contains("switching to TC learning at game 150") == (method == "otd+tc"))
        // The plot marks where TC took over.
        let plot = try String(contentsOfFile: folder.path + "/curve.svg", encoding: .utf8)
        #expect(plot.contains(">TC from here</text>") == (method == "otd+tc"))
        let (network, metadata) = try WeightsFile.load(from: weights)
        #expect(network.stageThresholds == (size == 4 ? [8, 9] : [7, 8]))
        #expect(network.promoted.first == true)
        #expect(metadata.learning.rawValue == method && metadata.coherenceStarted == (method == "otd+tc"))

        let conflict = try G2048Tests.run(["train", "--resume", weights, "--stages", "1024", "--games", "400"])
        #expect(conflict.status == 64)
        #expect(conflict.stderr.hasPrefix("error: --stages 1024 differs from the stages of --resume \(weights) (\(stages)); leave it out to continue them\n"))
        let reading = try G2048Tests.run(["train", "--resume", weights, "--stage-boards", "downgraded", "--games", "400"])
        #expect(reading.status == 64)
        #expect(
            reading.stderr.hasPrefix(
                "error: --stage-boards downgraded differs from --resume \(weights), whose stages read plain boards; leave it out to continue them\n"))
        let other = method == "td" ? "tc" : "td"
        let otherMethod = try G2048Tests.run(["train", "--resume", weights, "--learning", other, "--games", "400"])
        #expect(otherMethod.status == 64)
        #expect(
            otherMethod.stderr.hasPrefix("error: --learning \(other) differs from --resume \(weights), which learns by \(method); leave it out to continue\n"))

        let resumed = try G2048Tests.run(["train", "--resume", weights, "--games", "400"] + table)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stderr.contains("TC accumulators start again from zero") == (method != "td"))
        #expect(!resumed.stderr.contains("switching"))
        let again = try WeightsFile.load(from: weights)
        #expect(again.metadata.games == 400 && again.metadata.learning == metadata.learning && again.network.stageThresholds == network.stageThresholds)
        #expect(again.metadata.coherenceStarted == metadata.coherenceStarted)

        let played = try G2048Tests.run(["eval", "--weights", weights, "--games", "20", "--json"])
        #expect(played.status == 0, "\(played.stderr)")
    }

    /// A scratch folder for the end-to-end runs, removed at the end.
    typealias Folder = PlayCommandTests.Scratch

    /// `train --resume w3.bin` once demanded `--rows 3` again, wrote to weights-3x3.bin, and printed an
    /// `optimistic` value that has no effect: it now takes all of that from the file and writes back to it.
    @Test func resumeTakesTheNetworkFromTheFileAndRefusesAnotherSize() throws {
        let folder = Folder()
        let weights = folder.path + "/w3.bin"
        let first = try G2048Tests.run([
            "train", "--rows", "3", "--patterns", G2048Tests.smallPatterns, "--games", "300", "--alpha", "0.05", "--seed", "9", "--table-share", "0",
            "--out", weights,
        ])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("optimistic 10000"))
        // The table learned from games: a 3x3 sweep takes minutes in a debug build.
        let resumed = try G2048Tests.run(["train", "--resume", weights, "--games", "500", "--table-learning", "games"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stdout.hasPrefix("wrote \(weights): 500 games"))
        #expect(resumed.stderr.contains("resuming \(weights) (300 games,") && resumed.stderr.contains("3x3"))
        #expect(resumed.stderr.contains("α = 0.05") && resumed.stderr.contains("seed 9"))
        #expect(!resumed.stderr.contains("optimistic"))
        let (network, metadata) = try WeightsFile.load(from: weights)
        #expect(network.rows == 3 && metadata.games == 500 && metadata.alpha == 0.05 && metadata.seed == 9)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["w3.bin"])
        let conflict = try G2048Tests.run(["train", "--resume", weights, "--rows", "4", "--games", "600"])
        #expect(conflict.status == 64)
        #expect(conflict.stderr.hasPrefix("error: --rows/--cols say 4x4, but --resume \(weights) holds a 3x3 network; leave them out to continue it\n"))
        #expect(try WeightsFile.load(from: weights).metadata.games == 500)
    }

    /// `train --out /no/such/dir/w.bin` once trained the whole run and then failed to write.
    @Test func aMissingOutputFolderStopsTheRunBeforeItStarts() throws {
        let folder = Folder()
        let out = folder.path + "/missing/w.bin"
        let result = try G2048Tests.run(["train", "--rows", "3", "--games", "100000000", "--out", out])
        #expect(result.status == 1)
        #expect(result.stderr == "error: --out \(out): the directory \(folder.path)/missing does not exist\n")
        #expect(result.stdout.isEmpty)
    }

    /// A long run under its own process; `stopWhen` is polled until it holds, then `signal` is sent.
    static func interruptedTraining(_ arguments: [String], signal: Int32, when ready: () -> Bool) throws -> G2048Tests.Result {
        let process = Process()
        process.executableURL = G2048Tests.executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["G2048_PROGRESS": "off"]) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        nonisolated(unsafe) var stderr = Data()
        let reader = Thread { stderr = err.fileHandleForReading.readDataToEndOfFile() }
        reader.start()
        // A run that never gets ready is stopped anyway after a minute, so the test cannot hang.
        for _ in 0..<6_000 where !ready() && process.isRunning { usleep(10_000) }
        kill(process.processIdentifier, signal)
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !reader.isFinished { usleep(1000) }
        return G2048Tests.Result(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// Ctrl-C or SIGTERM once lost the whole run: now the weights and the curve are saved, the run says
    /// where, and exits 128 + the signal; the file left behind loads and resumes.
    @Test(arguments: [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")])
    func aSignalSavesTheRunAndExitsWith128PlusIt(signal: Int32, name: String) throws {
        let folder = Folder()
        let weights = folder.path + "/w.bin", csv = folder.path + "/curve.csv"
        let result = try Self.interruptedTraining(
            [
                "train", "--rows", "3", "--patterns", G2048Tests.smallPatterns, "--seconds", "3600", "--out", weights, "--metrics", csv, "--metrics-every",
                "100",
            ],
            signal: signal
        ) { ((try? String(contentsOfFile: csv, encoding: .utf8))?.split(separator: "\n").count ?? 0) >= 3 }
        #expect(result.status == 128 + signal, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("wrote \(weights): "))
        #expect(result.stderr.contains("\(name): stopping at once and saving"))
        #expect(result.stderr.contains("stopped by \(name): the weights are in \(weights), the learning curve in \(csv)"))
        let metadata = try WeightsFile.load(from: weights).metadata
        #expect(metadata.games >= 200)
        let rows = try TrainingMetrics.rows(fromCSVFile: csv)
        #expect(rows.last.map { $0.games <= metadata.games } == true)
        // No lock file or temporary file is left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["curve.csv", "w.bin"])
        let resumed = try G2048Tests.run([
            "train", "--resume", weights, "--games", "\(metadata.games + 10)", "--metrics", csv, "--table-learning", "games",
        ])
        #expect(resumed.status == 0, "\(resumed.stderr)")
    }

    /// A kill -9 gives no chance to save: the last checkpoint is what is left, and it loads.
    @Test func aKilledRunLeavesItsLastCheckpointLoadable() throws {
        let folder = Folder()
        let weights = folder.path + "/w.bin"
        let result = try Self.interruptedTraining(
            ["train", "--rows", "3", "--patterns", G2048Tests.smallPatterns, "--seconds", "3600", "--out", weights, "--checkpoint-every", "50"],
            signal: SIGKILL
        ) { (try? WeightsFile.load(from: weights).metadata.games).map { $0 >= 100 } ?? false }
        #expect(result.status == SIGKILL)
        let metadata = try WeightsFile.load(from: weights).metadata
        #expect(metadata.games >= 100 && metadata.games % 50 == 0)
    }

    @Test func trainThenEvalEndToEnd() throws {
        let directory = TemporaryDirectory()
        let weights = directory.file("w.bin"), csv = directory.file("curve.csv"), svg = directory.file("curve.svg")
        let trained = try G2048Tests.run([
            "train", "--rows", "3", "--patterns", G2048Tests.smallPatterns, "--games", "1500", "--table-share", "0", "--out", weights, "--metrics", csv,
            "--plot", svg, "--metrics-every", "500", "--checkpoint-every", "1000",
        ])
        #expect(trained.status == 0, "\(trained.stderr)")
        #expect(trained.stdout.hasPrefix("wrote \(weights): 1500 games"))
        #expect(trained.stderr.contains("training 3x3"))
        let (network, metadata) = try WeightsFile.load(from: weights)
        #expect(network.rows == 3 && metadata.games == 1500 && metadata.initialValue == TrainCommand.defaultOptimism(rows: 3, cols: 3))
        let curve = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n")
        #expect(curve.count == 4)  // header + 3 rows
        #expect(try String(contentsOfFile: svg, encoding: .utf8).hasPrefix("<svg"))

        let resumed = try G2048Tests.run([
            "train", "--rows", "3", "--games", "2000", "--table-share", "0", "--resume", weights, "--out", weights, "--metrics", csv,
        ])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try WeightsFile.load(from: weights).metadata.games == 2000)

        let learned = try G2048Tests.run(["eval", "--weights", weights, "--games", "200", "--json"])
        #expect(learned.status == 0, "\(learned.stderr)")
        let random = try G2048Tests.run(["eval", "--agent", "random", "--games", "200", "--json"])
        let mean = { (text: String) -> Double in
            let object = try! JSONSerialization.jsonObject(with: Data(text.utf8)) as! [String: Any]
            return (object["mean_score"] as! NSNumber).doubleValue
        }
        // The random player runs on 4×4 and the learner on 3×3, so only sanity is compared here.
        #expect(mean(learned.stdout) > 300)
        #expect(mean(random.stdout) > 300)
    }

    /// `eval --agent expectimax --rows 3` was refused: the built-in players now play on any board, under
    /// the same rules flags as play, with the one list of players that play uses.
    @Test func evalTakesTheRulesFlagsForBuiltInPlayers() throws {
        let command = try Self.eval(["--agent", "expectimax", "--rows", "3", "--cols", "5", "--win-tile", "256"])
        #expect(command.rules == (try Rules(rows: 3, cols: 5, winTile: 256)) && command.depth == 2)
        #expect(try Self.eval(["--agent", "greedy"]).rules == Rules())
        let result = try G2048Tests.run(["eval", "--agent", "greedy", "--rows", "3", "--win-tile", "64", "--games", "50", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(report["board"] as? String == "3x3")
        // The help reflows its paragraphs: compare the text with its line breaks as spaces.
        func text(_ help: String) -> String { help.split(separator: "\n").joined(separator: " ") }
        #expect(text(EvalCommand.spec.help).contains(Agent.descriptions) && text(PlayCommand.spec.help).contains(Agent.descriptions))
    }

    @Test func theNetworkPlaysOnItsOwnBoardOnly() throws {
        let folder = Folder()
        let weights = folder.path + "/w.bin"
        #expect(try G2048Tests.run(["train", "--rows", "2", "--games", "20", "--out", weights]).status == 0)
        let wrong = try G2048Tests.run(["eval", "--weights", weights, "--rows", "3", "--games", "5"])
        #expect(wrong.status == 64)
        #expect(wrong.stderr.hasPrefix("error: --rows/--cols say 3x3, but --weights \(weights) is for 2x2 boards\n"))
        let right = try G2048Tests.run(["eval", "--weights", weights, "--rows", "2", "--games", "5", "--json"])
        #expect(right.status == 0 && right.stdout.contains("\"board\": \"2x2\""))
    }

    @Test func evalOfACorruptedFileIsAOneLineError() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("bad.bin")
        try Data("not weights at all".utf8).write(to: URL(fileURLWithPath: path))
        let result = try G2048Tests.run(["eval", "--weights", path, "--games", "5"])
        #expect(result.status == 1)
        #expect(result.stderr == "error: \(path): not a Gym2048 weights file (bad magic)\n")
        let missing = try G2048Tests.run(["eval", "--weights", path + ".none", "--games", "5"])
        #expect(missing.status == 1)
        #expect(missing.stderr.hasPrefix("error: cannot open \(path).none"))
    }

    /// `eval --agent expectimax --depth 4 --games 1` once ran for minutes in silence: progress now counts
    /// moves within a game, and the node budget bounds each move.
    /// A search's speed is part of its report, in text and in JSON, at every depth.
    @Test(arguments: [1, 2])
    func aSearchReportsItsMovesPerSecond(depth: Int) throws {
        let common = ["eval", "--agent", "expectimax", "--depth", "\(depth)", "--nodes", "300", "--prune", "0.01", "--games", "2"]
        let text = try G2048Tests.run(common)
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("moves/s "))
        let json = try G2048Tests.run(common + ["--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(((object["moves_per_second"] as? NSNumber)?.doubleValue ?? 0) > 0)
    }

    @Test func aLongEvalShowsProgressWithinAGame() throws {
        let arguments = ["eval", "--agent", "expectimax", "--depth", "4", "--nodes", "100", "--games", "1", "--json"]
        let shown = try G2048Tests.run(arguments, environment: ["G2048_PROGRESS": "0"])
        #expect(shown.status == 0, "\(shown.stderr)")
        let lines = shown.stderr.split(separator: "\n")
        #expect(lines.count > 10)
        #expect(lines.first?.hasPrefix("0/1 games, 1 moves, ") == true)
        #expect(lines.contains { $0.hasPrefix("0/1 games, 10 moves, ") })
        let hidden = try G2048Tests.run(arguments, environment: ["G2048_PROGRESS": "off"])
        #expect(hidden.status == 0 && hidden.stderr.isEmpty)
        // The budget counts nodes, not seconds: the same game both times.
        let score = { (text: String) in text.components(separatedBy: "\"max_score\": ").last?.prefix { $0.isNumber } }
        #expect(score(hidden.stdout) != nil && score(hidden.stdout) == score(shown.stdout))
    }
}

/// `g2048 solve` and the optimal agent, through the command line.
struct SolveCommandTests {
    @Test func solveWritesASolutionThatEvalAndPlayPlay() throws {
        let folder = TemporaryDirectory()
        let path = folder.file("s2x3.bin")
        let solve = try G2048Tests.run(["solve", "--rows", "2", "--cols", "3", "--threads", "1", "--out", path])
        #expect(solve.status == 0, "\(solve.stderr)")
        let solving = "solving 2x3 for the expected score (the sum of the merged tiles) on 1 thread: about 1.5e+04 afterstates"
        #expect(solve.stderr.hasPrefix(solving), "\(solve.stderr)")
        #expect(solve.stdout.contains("optimal score    480.26 (expected, from the starting boards)"), "\(solve.stdout)")
        let eval = try G2048Tests.run(["eval", "--solution", path, "--games", "4000", "--json"])
        #expect(eval.status == 0, "\(eval.stderr)")
        #expect(eval.stderr.contains("optimal expected score 480.26"))
        let report = try #require(try JSONSerialization.jsonObject(with: Data(eval.stdout.utf8)) as? [String: Any])
        let mean = try #require(report["mean_score"] as? Double), error = try #require(report["standard_error"] as? Double)
        #expect(abs(mean - 480.26) < 3 * error && report["player"] as? String == "optimal")
    }

    /// The output is checked before the solve, as every command's: a long solve is never lost to its --out.
    @Test func solveChecksItsOutputFirst() throws {
        let folder = TemporaryDirectory()
        let missing = try G2048Tests.run(["solve", "--rows", "2", "--out", folder.file("no/such/s.bin")])
        #expect(missing.status == 1 && missing.stderr.hasPrefix("error: --out \(folder.file("no/such/s.bin")): the directory"))
        #expect(!missing.stderr.contains("layers"), "it solved before checking: \(missing.stderr)")
        let path = folder.file("s.bin")
        #expect(try G2048Tests.run(["solve", "--rows", "2", "--out", path]).status == 0)
        let again = try G2048Tests.run(["solve", "--rows", "2", "--out", path])
        #expect(again.status == 1 && again.stderr.contains("already exists; add --force to replace it"))
        #expect(try G2048Tests.run(["solve", "--rows", "2", "--out", path, "--force"]).status == 0)
    }

    /// `solve` under a memory limit below its need printed its estimate, then aborted with a backtrace (exit 134) and
    /// left `<out>.lock`: it is refused before the work, with the estimate and the limit, and leaves nothing.
    @Test func aSolveThatCannotFitInMemoryIsRefusedFirst() throws {
        let folder = TemporaryDirectory()
        let (status, stderr) = try G2048Tests.runInShell(
            "ulimit -v 100000; exec \"$0\" solve --rows 2 --cols 4 --threads 1 --out \"$1\"", [folder.file("s.bin")])
        #expect(status == 1, "\(stderr)")
        #expect(stderr.hasPrefix("error: solving 2x4 needs about 130 MiB of memory (estimated), and this process may map only "), "\(stderr)")
        #expect(
            stderr.hasSuffix(
                " more (its address-space limit, ulimit -v), 144 MiB of it for the stacks and allocator arenas of the 2 threads it starts; nothing was solved\n"
            ),
            "\(stderr)")
        #expect(folder.names.isEmpty)
        // Between the estimate and the need (170 to 215 MB on one thread, where the threads' arenas were not counted)
        // the check passed and the solve aborted: every limit now solves or is refused, and leaves no lock.
        for limit in stride(from: 150_000, through: 300_000, by: 25_000) {
            let run = try G2048Tests.runInShell(
                "ulimit -v \(limit); exec \"$0\" solve --rows 2 --cols 4 --threads 1 --force --out \"$1\"", [folder.file("s.bin")])
            #expect(
                run.status == 0 || (run.status == 1 && run.stderr.hasPrefix("error: solving 2x4 needs about 130 MiB")), "\(limit): \(run.stderr.prefix(300))")
            #expect(!folder.names.contains("s.bin.lock"), "\(limit)")
        }
    }

    /// `solve` killed by SIGINT or SIGTERM ended with no word and left `<out>.lock`: it now stops after the layer
    /// at hand, says so and that nothing was written, removes its lock and exits with 128 + the signal.
    @Test(arguments: [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")])
    func aSignalStopsASolveWithAWordAndNoLock(signal: Int32, name: String) throws {
        let folder = TemporaryDirectory()
        let start = Date()
        let result = try TrainEvalCommandTests.interruptedTraining(
            ["solve", "--rows", "3", "--threads", "1", "--out", folder.file("s.bin")], signal: signal
        ) { Date().timeIntervalSince(start) > 1.5 }
        #expect(result.status == 128 + signal, "\(result.stderr)")
        #expect(result.stderr.contains("\(name): stopping after the layer at hand"), "\(result.stderr)")
        #expect(
            result.stderr.hasSuffix("stopped by \(name): nothing was written (a solve cut short has no values to keep); run it again to solve\n"),
            "\(result.stderr)")
        #expect(folder.names.isEmpty, "\(folder.names)")
    }

    /// A second signal quits at once, as it says, and left `<out>.lock` behind: the lock files go before the exit,
    /// for `solve` and `train` alike.
    @Test(arguments: [
        ["solve", "--rows", "3", "--threads", "1"], ["train", "--rows", "3", "--patterns", G2048Tests.smallPatterns, "--seconds", "600"],
    ])
    func aSecondSignalQuitsAtOnceWithoutALock(arguments: [String]) throws {
        let folder = TemporaryDirectory()
        let process = Process()
        process.executableURL = G2048Tests.executable
        process.arguments = arguments + ["--out", folder.file("out.bin")]
        process.environment = ProcessInfo.processInfo.environment.merging(["G2048_PROGRESS": "off"]) { $1 }
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        // The signals are watched from just after the run's first line ("solving …", "training …"): a fixed wait
        // once fired before a loaded machine got there, and the default action killed the process.
        var said = Data()
        while !String(decoding: said, as: UTF8.self).contains("\n") {
            let chunk = errors.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            said.append(chunk)
        }
        usleep(300_000)
        kill(process.processIdentifier, SIGINT)
        // Apart, so that the two are not one event; sooner than a stop takes.
        usleep(30_000)
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationStatus == 130)
        #expect(!folder.names.contains("out.bin.lock"), "\(folder.names)")
    }

    /// Training with the board's solution: the plot draws optimal play, the end gives the last games' share of it.
    @Test func trainMeasuresItselfAgainstASolution() throws {
        let folder = TemporaryDirectory()
        let solution = folder.file("s.bin")
        #expect(try G2048Tests.run(["solve", "--rows", "2", "--cols", "3", "--out", solution]).status == 0)
        let train = try G2048Tests.run([
            "train", "--rows", "2", "--cols", "3", "--games", "2000", "--out", folder.file("w.bin"), "--plot", folder.file("c.svg"),
            "--solution", solution, "--metrics-every", "100",
        ])
        #expect(train.status == 0, "\(train.stderr)")
        #expect(train.stdout.contains("% of optimal play's 480.26)"), "\(train.stdout)")
        let svg = try String(contentsOfFile: folder.file("c.svg"), encoding: .utf8)
        #expect(svg.contains("class=\"reference\"") && svg.contains("optimal play: 480.3; the last point is "))
        #expect(svg.contains("table swept here"), "the plot marks where the afterstate table was swept")
        // A solution of another board, or of other rules, is refused before any training.
        for other in [["--rows", "3", "--cols", "2"], ["--rows", "2", "--cols", "3", "--spawn-four-probability", "0.5"]] {
            let run = try G2048Tests.run(["train", "--games", "10", "--out", folder.file("x.bin"), "--solution", solution] + other)
            #expect(run.status == 64 && run.stderr.contains("under other rules than this run's"), "\(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: folder.file("x.bin")))
        }
    }

    /// A 2x2 solution solved into `folder`: its path, its bytes and its layer count, for a test to forge from.
    static func solve2x2(in folder: TemporaryDirectory) throws -> (path: String, bytes: [UInt8], layers: Int) {
        let path = folder.file("s.bin")
        #expect(try G2048Tests.run(["solve", "--rows", "2", "--cols", "2", "--out", path]).status == 0)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        return (path, bytes, Int(bytes[Solution.headerSize - 4]))
    }

    /// A 2x2 solution holding only its youngest layers, ages 0 to 7 (the starting boards' moves and a few more),
    /// sealed with a valid checksum: it loads, and its optimal player has no move once a game passes them.
    static func partialSolution2x2(in folder: TemporaryDirectory) throws -> String {
        let (path, solved, layers) = try Self.solve2x2(in: folder)
        func count(_ layer: Int) -> Int { (0..<8).reduce(0) { $0 | Int(solved[Solution.headerSize + 8 * layer + $1]) << (8 * $1) } }
        let kept = 8
        var partial = Array(solved[..<(Solution.headerSize - 4)]) + [UInt8(kept), 0, 0, 0]
        partial += solved[Solution.headerSize..<(Solution.headerSize + 8 * kept)]
        let start = Solution.headerSize + 8 * layers
        partial += solved[start..<(start + (0..<kept).reduce(0) { $0 + 16 * count($1) })]
        var sum = WeightsFile.checksum(of: partial)
        partial += withUnsafeBytes(of: &sum) { Array($0) }
        try Data(partial).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A solution holding only its youngest layers (sealed with a valid checksum) gave the optimal player no move
    /// once a game passed them: `eval` ended those games there without a word, and reported their scores with exit
    /// 0. A player that gives no move where one is legal now stops the evaluation with an error naming the board.
    @Test func aPlayerWithoutAMoveWhereOneIsLegalStopsTheEvaluation() throws {
        let folder = TemporaryDirectory()
        let path = try Self.partialSolution2x2(in: folder)
        let run = try G2048Tests.run(["eval", "--solution", path, "--games", "3", "--threads", "1"])
        #expect(run.status == 1, "\(run.stdout)")
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("error: game 1: the optimal player gave no move on a board with legal moves: "), "\(run.stderr)")
    }

    /// A solution file whose header claims 2^31 afterstates, with the length to match but no disk blocks (a
    /// sparse file): `query` and `eval` stopped (`failed to allocate 17179869216 bytes`, SIGABRT); they now refuse
    /// it from its header with the limit it passes, as a weights file is. (Under `ulimit -v`, so that the
    /// allocation fails at once where it is still tried.)
    @Test func aSparseSolutionBeyondMemoryIsRefusedFromItsHeader() throws {
        let folder = TemporaryDirectory()
        let (path, solved, layers) = try Self.solve2x2(in: folder)
        var forged = Array(solved[..<(Solution.headerSize + 8 * layers)])
        for layer in 0..<layers {
            for byte in 0..<8 { forged[Solution.headerSize + 8 * layer + byte] = layer == 1 && byte == 3 ? 0x80 : 0 }
        }
        try Data(forged).write(to: URL(fileURLWithPath: path))
        try #require(truncate(path, off_t(forged.count + 16 << 31 + 8)) == 0, "this file system has no sparse files")
        for command in ["exec \"$0\" query --solution \"$1\" --board '[[2,2],[0,0]]'", "exec \"$0\" eval --solution \"$1\" --games 1"] {
            let run = try G2048Tests.runInShell("ulimit -v 8000000; " + command, [path])
            #expect(run.status == 1, "\(command): \(run.stderr.prefix(300))")
            #expect(run.stderr.hasPrefix("error: \(path) holds 2147483648 afterstates by its header, 32 GiB to load; "), "\(run.stderr.prefix(300))")
        }
    }

    /// `query` answers what the solution knows, by hand-made boards: a board's value is its best action's value,
    /// a board with no move is worth 0, a board no game reaches has no value; bad input is an error, not an answer.
    @Test func queryAnswersFromTheSolution() throws {
        let folder = TemporaryDirectory()
        let path = folder.file("s2x3.bin")
        #expect(try G2048Tests.run(["solve", "--rows", "2", "--cols", "3", "--out", path]).status == 0)
        // 2 2 4 / 0 0 0: up is illegal; the three others are legal; a lone tile is on no game's board (two at least).
        let boards = folder.file("boards.jsonl")
        try "[[2,2,4],[0,0,0]]\n[2,4,2,4,2,4]\n[[2,0,0],[0,0,0]]\n".write(toFile: boards, atomically: true, encoding: .utf8)
        let run = try G2048Tests.run(["query", "--solution", path, "--boards", boards, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        // Read by Foundation's parser, not the one that wrote them.
        let lines = try run.stdout.split(separator: "\n").map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(lines.count == 3)
        let values = try #require(lines[0]["action_values"] as? [Any])
        #expect(values[0] is NSNull && values.dropFirst().allSatisfy { ($0 as? Double).map { $0 >= 4 } ?? false })
        let best = values.compactMap { $0 as? Double }.max()!
        #expect(lines[0]["value"] as? Double == best && lines[0]["reachable"] as? Bool == true)
        #expect(lines[0]["optimal_action"] as? Int == values.firstIndex { $0 as? Double == best })
        #expect(lines[1]["value"] as? Double == 0 && lines[1]["optimal_action"] is NSNull)
        #expect(lines[2]["reachable"] as? Bool == false && lines[2]["value"] is NSNull)
        // The text form says the same for people.
        let text = try G2048Tests.run(["query", "--solution", path, "--board", "[[2,0,0],[0,0,0]]"])
        #expect(text.status == 0 && text.stdout.contains("not a board any game reaches"), "\(text.stdout)")
        // Bad input: a usage error for --board, the file and line for --boards, nothing answered for them.
        let bad = try G2048Tests.run(["query", "--solution", path, "--board", "[[2,2,4],[0,0]]"])
        #expect(bad.status == 64 && bad.stderr.contains("--board: board must be a 2x3 list of tile values"), "\(bad.stderr)")
        try "[[2,2,4],[0,0,0]]\n[[3,0,0],[0,0,0]]\n".write(toFile: boards, atomically: true, encoding: .utf8)
        let badLine = try G2048Tests.run(["query", "--solution", path, "--boards", boards])
        #expect(badLine.status == 1 && badLine.stderr.contains("boards.jsonl:2: board cell 0 must be 0 or a power of two"), "\(badLine.stderr)")
        let neither = try G2048Tests.run(["query", "--solution", path])
        #expect(neither.status == 64 && neither.stderr.contains("--board '<json>' (one) or --boards <file>"))
        // A flat list of the wrong length was called "5 rows": each shape is named as it was given.
        for (board, said) in [
            ("[2,2,0,0,4]", "got a flat list of 5 values (a flat 2x3 board has 6)"), ("[[2,2,0],[0,0,0],[0,0,0]]", "got 3 rows"),
            ("[[2,2,0],0,0,0]", "got a list of 4 items, rows and values mixed"),
        ] {
            let wrong = try G2048Tests.run(["query", "--solution", path, "--board", board])
            #expect(
                wrong.status == 64 && wrong.stderr.hasPrefix("error: --board: board must be a 2x3 list of tile values (0 or 2, 4, 8, …), \(said)\n"),
                "\(wrong.stderr)")
        }
    }

    /// A seeded fuzz of `query --board`: 80 boards, most of them mutations of a board's JSON (bytes changed, cut,
    /// repeated; huge, negative and fractional numbers; other shapes; deep nesting), each answered (exit 0) or
    /// refused in one `error:` line with exit 64, never a crash; a truncated solution file is refused with exit 1.
    @Test func queryFuzzedBoardsAnswerOrFailInOneLine() throws {
        let folder = TemporaryDirectory()
        let path = folder.file("s2x3.bin")
        #expect(try G2048Tests.run(["solve", "--rows", "2", "--cols", "3", "--out", path]).status == 0)
        var rng = Xoshiro256StarStar(seed: 29)
        let base = Array("[[2,2,4],[0,8,0]]".utf8)
        let pieces = ["1e999", "-2", "2.5", "\"2\"", "null", "[", "]", ",", "99999999999999999999999", "[[[[[[[[", "{}", "0"]
        var answered = 0
        for _ in 0..<80 {
            var bytes = base
            // A quarter are well-formed boards of small tiles, reached or not; the rest mutated.
            if rng.uniform(below: 4) == 0 {
                let tiles = (0..<6).map { _ in [0, 2, 4, 8, 16][rng.uniform(below: 5)] }
                bytes = Array("[[\(tiles[0]),\(tiles[1]),\(tiles[2])],[\(tiles[3]),\(tiles[4]),\(tiles[5])]]".utf8)
            } else {
                for _ in 0...rng.uniform(below: 3) {
                    let at = rng.uniform(below: bytes.count + 1)
                    switch rng.uniform(below: 4) {
                    case 0 where at < bytes.count: bytes[at] = UInt8(32 + rng.uniform(below: 95))
                    case 1: bytes = Array(bytes[..<at])
                    case 2: bytes.insert(contentsOf: Array(pieces[rng.uniform(below: pieces.count)].utf8), at: at)
                    default: bytes.insert(contentsOf: bytes, at: at)
                    }
                }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            let run = try G2048Tests.run(["query", "--solution", path, "--board", text, "--json"])
            let errors = run.stderr.split(separator: "\n").filter { $0.hasPrefix("error: ") }
            #expect(run.status == 0 || (run.status == 64 && errors.count == 1 && errors[0].hasPrefix("error: --board: ")), "\(text): \(run.stderr)")
            if run.status == 0 { answered += 1 }
        }
        #expect(answered > 0 && answered < 80, "both kinds among the mutations")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: folder.file("cut.bin")))
        let cut = try G2048Tests.run(["query", "--solution", folder.file("cut.bin"), "--board", "[[2,2,4],[0,0,0]]"])
        #expect(cut.status == 1 && cut.stderr.split(separator: "\n").count == 1, "\(cut.stderr)")
    }

    /// The win objective: the chance of reaching the win tile, solved and measured exactly.
    @Test func solveForTheWinTile() throws {
        let folder = TemporaryDirectory()
        let path = folder.file("w.bin")
        let solve = try G2048Tests.run(["solve", "--rows", "2", "--win-tile", "32", "--objective", "win", "--out", path])
        #expect(solve.status == 0, "\(solve.stderr)")
        #expect(solve.stdout.contains("optimal win rate 0.082887 (expected, from the starting boards)"), "\(solve.stdout)")
        let exact = try G2048Tests.run(["eval", "--exact", "--solution", path, "--agent", "greedy"])
        #expect(exact.status == 0, "\(exact.stderr)")
        #expect(exact.stdout.contains("board           2x2 (solved for the chance of reaching the win tile)"), "\(exact.stdout)")
        #expect(exact.stdout.contains("optimal win rate 0.082887"), "\(exact.stdout)")
    }

    @Test func evalExactComputesAPlayersExpectedScoreOnTheSolvedBoard() throws {
        let folder = TemporaryDirectory()
        let path = folder.file("s2x3.bin")
        #expect(try G2048Tests.run(["solve", "--rows", "2", "--cols", "3", "--out", path]).status == 0)
        var scores: [String: Double] = [:]
        for agent in ["random", "greedy", "optimal"] {
            let run = try G2048Tests.run(["eval", "--exact", "--solution", path, "--agent", agent, "--json"])
            #expect(run.status == 0, "\(run.stderr)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
            #expect(report["exact"] as? Bool == true && report["optimal_score"] as? Double ?? 0 > 480)
            scores[agent] = try #require(report["expected_score"] as? Double)
        }
        #expect(scores["random"]! < scores["greedy"]! && scores["greedy"]! < scores["optimal"]!)
        #expect(abs(scores["optimal"]! - 480.26) < 0.01)
    }

    /// An exact evaluation of a search asks it every board it reaches (hours on 3×3): it shows its layers, the
    /// player's pass then the valuing one, on stderr, and the same report either way (here with the greedy
    /// player, which the same passes evaluate in a moment).
    @Test func evalExactShowsItsProgressByLayer() throws {
        let folder = TemporaryDirectory()
        let path = folder.file("s2x3.bin")
        #expect(try G2048Tests.run(["solve", "--rows", "2", "--cols", "3", "--out", path]).status == 0)
        let arguments = ["eval", "--exact", "--solution", path, "--agent", "greedy", "--threads", "1"]
        let shown = try G2048Tests.run(arguments, environment: ["G2048_PROGRESS": "0"])
        #expect(shown.status == 0, "\(shown.stderr)")
        let lines = shown.stderr.split(separator: "\n").filter { $0.contains(" layers, ") || $0.contains(" of the solution, ") }
        let asking = lines.filter { $0.contains(" afterstates of the solution, layer ") && $0.contains(", the player's moves on ") }
        let valuing = lines.filter { $0.contains(" layers, valuing ") }
        #expect(asking.count > 10 && valuing.count > 10, "\(shown.stderr)")
        #expect(lines.firstIndex { $0.contains("valuing") }! > lines.lastIndex { $0.contains("the player's moves") }!)
        // The forward pass counts the solution's afterstates of the layers passed, up to all 14 883 of 2×3's.
        #expect(asking.last?.hasPrefix("14883/14883 afterstates of the solution") == true, "\(asking.last ?? "")")
        #expect(valuing.last?.hasPrefix("\(valuing.count)/\(valuing.count) layers") == true, "\(valuing.last ?? "")")
        let hidden = try G2048Tests.run(arguments, environment: ["G2048_PROGRESS": "off"])
        #expect(hidden.status == 0 && hidden.stderr.filter { $0 == "\n" }.count == 1, "\(hidden.stderr)")
        #expect(hidden.stdout == shown.stdout)
    }

    @Test(arguments: [
        (["eval", "--exact", "--agent", "greedy"], "error: --exact needs --solution <file>: the solved board it computes on"),
        (["eval", "--exact", "--solution", "s.bin", "--agent", "montecarlo"], "error: --exact needs a player whose move a board decides"),
        (["solve", "--rows", "4", "--out", "x"], "error: 4x4 has 16 cells; the solver solves boards of up to 9 cells"),
        (["solve", "--rows", "2"], "error: --out <file> is required: where to write the solution"),
        (
            ["solve", "--rows", "2", "--max-steps", "64", "--out", "x"],
            "error: the solver does not model this game: it plays each game to its end: a step limit (max_steps)"
        ),
        (["solve", "--rows", "2", "--objective", "win", "--out", "x"], "error: the win objective needs a win tile (win_tile)"),
        (["solve", "--rows", "2", "--objective", "wins", "--out", "x"], "error: --objective must be one of score, win, got 'wins'"),
        (["eval", "--agent", "optimal"], "error: --agent optimal needs --solution <file> (written by 'g2048 solve')"),
        (["eval", "--solution", "s.bin", "--agent", "greedy"], "error: --solution is used by --agent optimal, or by any player with --exact"),
    ])
    func usageErrorsSayWhatIsWrong(arguments: [String], message: String) throws {
        let run = try G2048Tests.run(arguments)
        #expect(run.status == 64 && run.stderr.hasPrefix(message), "\(run.stderr)")
    }
}
