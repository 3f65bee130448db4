import GymCore
import Testing

@testable import Game2048

/// 2048's fast vector (``VectorEnvironment``) against the path every game shares (``VectorGame`` of
/// ``Environment`` through its `GameEnvironment` conformance): the same seeds and actions give the same
/// observations, rewards, flags, info and final observations, under every autoreset mode and invalid-action
/// policy, on packed and generic boards.
struct GenericPathTests {
    static let rules: [Rules] = [
        Rules(),
        try! Rules(maxSteps: 25, invalidAction: .terminate(penalty: 3)),
        try! Rules(rows: 2, cols: 3, invalidAction: .noop),
        try! Rules(rows: 5, cols: 3, spawnFourProbability: 0.5, winTile: 64),
        try! Rules(rows: 3, cols: 3, invalidAction: .reject),
    ]

    @Test(arguments: [AutoresetMode.nextStep, .sameStep, .disabled], 0..<5)
    func theFastVectorIsTheGenericOne(mode: AutoresetMode, rulesIndex: Int) throws {
        let rules = Self.rules[rulesIndex]
        let count = 9
        var fast = VectorEnvironment(rules: rules, count: count, autoresetMode: mode)
        var generic = VectorGame<Environment>(rules: rules, count: count, autoresetMode: mode)
        fast.reset(seed: 5)
        generic.reset(seed: 5)
        let columns = generic.space.columns(finals: mode == .sameStep)
        var agent = Xoshiro256StarStar(seed: 8)
        var steps = 0, endings = 0, refusals = 0
        for _ in 0..<300 {
            if mode == .disabled {
                for index in fast.finishedIndices {
                    fast.reset(index: index)
                    generic.reset(index: index)
                }
            }
            let actions = (0..<count).map { _ in Direction(rawValue: agent.uniform(below: 4))! }
            let fastRefusal: VectorStepError?
            do throws(VectorStepError) {
                try fast.step(actions)
                fastRefusal = nil
            } catch { fastRefusal = error }
            let genericRefused: Bool
            do throws(VectorStepRefusal<Environment.ActionError>) {
                try generic.step(actions.map(\.rawValue))
                genericRefused = false
            } catch { genericRefused = true }
            #expect((fastRefusal != nil) == genericRefused)
            if genericRefused {
                refusals += 1
                continue
            }
            steps += 1
            let written = Written(columns: columns, count: count)
            written.fill(generic)
            for index in 0..<count {
                #expect(written.bytes(0, index) == fast.observation(at: index).exponents)
                #expect(written.int64(1, index) == fast.rewards[index])
                #expect(written.bytes(2, index) == [fast.terminations[index] ? 1 : 0])
                #expect(written.bytes(3, index) == [fast.truncations[index] ? 1 : 0])
                let info = fast.info(at: index)
                #expect(written.bytes(4, index) == Direction.allCases.map { info.actionMask.contains($0) ? 1 : 0 })
                #expect(written.int64(5, index) == info.score && written.int64(6, index) == Int64(info.maxTile))
                #expect(written.int64(7, index) == Int64(info.steps) && written.bytes(8, index) == [info.won ? 1 : 0])
                if mode == .sameStep {
                    #expect(written.bytes(9, index) == [fast.finals[index] ? 1 : 0])
                    if let final = fast.finalObservation(at: index) {
                        endings += 1
                        #expect(written.bytes(10, index) == final.exponents)
                    }
                }
            }
        }
        #expect(steps > (rulesIndex == 4 ? 20 : 100))
        if rulesIndex == 4 { #expect(refusals > 0) }
        if mode == .sameStep && rulesIndex != 0 { #expect(endings > 0) }
    }

    /// The limits every game shares (``EpisodeLimits``), applied by ``VectorGame`` around an environment that
    /// refuses every illegal move, play as 2048's own limits do in its fast vector: the same boards, rewards,
    /// flags and info but `steps` (2048 counts its no-op moves there; the shared limits count them apart).
    @Test(arguments: [AutoresetMode.nextStep, .sameStep, .disabled], 0..<4)
    func theSharedLimitsAre2048sOwn(mode: AutoresetMode, limitsIndex: Int) throws {
        let limits = [
            EpisodeLimits(maxSteps: 25, invalidAction: .terminate(penalty: 3)), EpisodeLimits(invalidAction: .noop),
            EpisodeLimits(maxSteps: 7, invalidAction: .noop), EpisodeLimits(invalidAction: .terminate(penalty: 0)),
        ][limitsIndex]
        let rules = try Rules(rows: 3, cols: 3, maxSteps: limits.maxSteps, invalidAction: limits.invalidAction)
        let count = 7
        var fast = VectorEnvironment(rules: rules, count: count, autoresetMode: mode)
        var generic = VectorGame<Environment>(
            rules: try Rules(rows: 3, cols: 3, invalidAction: .reject), count: count, autoresetMode: mode, limits: limits)
        #expect(generic.space.rewardRange.lowerBound == -Double(limits.invalidAction.penalty))
        fast.reset(seed: 11)
        generic.reset(seed: 11)
        let columns = generic.space.columns(finals: mode == .sameStep)
        var agent = Xoshiro256StarStar(seed: 3)
        var (illegal, endings) = (0, 0)
        for _ in 0..<400 {
            if mode == .disabled {
                for index in fast.finishedIndices {
                    fast.reset(index: index)
                    generic.reset(index: index)
                }
            }
            let actions = (0..<count).map { _ in Direction(rawValue: agent.uniform(below: 4))! }
            let finished = fast.finishedIndices
            illegal += (0..<count).filter { !finished.contains($0) && !fast.info(at: $0).actionMask.contains(actions[$0]) }.count
            try fast.step(actions)
            try generic.step(actions.map(\.rawValue))
            let written = Written(columns: columns, count: count)
            written.fill(generic)
            for index in 0..<count {
                let info = fast.info(at: index)
                #expect(written.bytes(0, index) == fast.observation(at: index).exponents)
                #expect(written.int64(1, index) == fast.rewards[index])
                #expect(written.bytes(2, index) == [fast.terminations[index] ? 1 : 0])
                #expect(written.bytes(3, index) == [fast.truncations[index] ? 1 : 0])
                #expect(written.bytes(4, index) == Direction.allCases.map { info.actionMask.contains($0) ? 1 : 0 })
                #expect(written.int64(5, index) == info.score && written.bytes(8, index) == [info.won ? 1 : 0])
                if mode == .sameStep, let final = fast.finalObservation(at: index) {
                    endings += 1
                    #expect(written.bytes(9, index) == [1] && written.bytes(10, index) == final.exponents)
                }
            }
        }
        #expect(illegal > 50, "random moves on 3×3 are often illegal")
        if mode == .sameStep { #expect(endings > 0) }
    }

    /// The generic path's result columns, written once.
    final class Written {
        let columns: GameColumns
        let count: Int
        var addresses: [UnsafeMutableRawPointer?]

        init(columns: GameColumns, count: Int) {
            self.columns = columns
            self.count = count
            addresses = columns.all.map { UnsafeMutableRawPointer.allocate(byteCount: $0.byteCount(environments: count), alignment: 8) }
        }

        deinit { for address in addresses { address?.deallocate() } }

        func fill(_ game: VectorGame<Environment>) { addresses.withUnsafeBufferPointer { game.write(into: $0) } }

        func bytes(_ column: Int, _ index: Int) -> [UInt8] {
            let width = columns.all[column].byteCount(environments: 1)
            return Array(UnsafeRawBufferPointer(start: addresses[column]! + index * width, count: width))
        }

        func int64(_ column: Int, _ index: Int) -> Int64 { addresses[column]!.load(fromByteOffset: index * 8, as: Int64.self) }
    }
}
