import Game2048
@testable import Game2048Network
@testable import Game2048Search
import GymPlay
import Testing

struct AgentTests {
    @Test func namesAreTheIssuesFive() {
        #expect(Agent.names == "random, greedy, montecarlo, expectimax, ntuple, optimal")
        #expect(Agent(name: "greedy") == .greedy)
        #expect(Agent(name: "alphazero") == nil)
        #expect(Agent.allCases.filter(\.needsNetwork) == [.ntuple])
        #expect(Agent.allCases.filter(\.needsSolution) == [.optimal])
    }

    @Test(arguments: [Agent.random, .greedy, .montecarlo, .expectimax])
    func builtInAgentsPlayLegalMoves(agent: Agent) throws {
        var player = agent.makePlayer(seed: 3, network: nil)
        var environment = Environment(rules: Rules())
        environment.reset(seed: 1)
        for _ in 0..<5 where !environment.isOver {
            guard let action = player.action(on: environment.board, rules: environment.rules) else {
                Issue.record("no move on a board that has one")
                return
            }
            #expect(environment.actionMask.contains(action))
            _ = try environment.step(action)
        }
    }

    @Test func ntupleAgentAndHintSearchTheNetworkAtDepthOne() {
        let network = NTupleNetwork(rows: 4, cols: 4)
        #expect(Agent.ntuple.makePlayer(seed: 0, network: network).name == "ntuple, expectimax depth 1")
        #expect(Agent.hintPlayer(network: network).name == "ntuple, expectimax depth 1")
        #expect(Agent.hintPlayer(network: nil).name == "expectimax (heuristic), depth 2")
    }

    /// `play --downgrade` reaches both of play's network searches; the default is the 32768 tile.
    @Test func theHintAndTheNtupleAgentTakeTheDowngradingTile() throws {
        let network = NTupleNetwork(rows: 4, cols: 4)
        func limit(_ player: any Player) throws -> UInt8? { try #require(player as? SearchPlayer).search.downgradeLimit }
        #expect(try limit(Agent.hintPlayer(network: network)) == 15)
        #expect(try limit(Agent.hintPlayer(network: network, downgradeLimit: 13)) == 13)
        #expect(try limit(Agent.hintPlayer(network: network, downgradeLimit: nil)) == nil)
        #expect(try limit(Agent.ntuple.makePlayer(seed: 0, network: network, downgradeLimit: 12)) == 12)
    }

    /// eval and play build their players from this one list, with eval's depth and node budget.
    @Test func searchesTakeADepthTheOthersHaveNone() {
        #expect(Agent.allCases.filter(\.searches) == [.expectimax, .ntuple])
        #expect(Agent.expectimax.makePlayer(seed: 0, network: nil, depth: 3).name == "expectimax (heuristic), depth 3")
        #expect(Agent.ntuple.makePlayer(seed: 0, network: NTupleNetwork(rows: 3, cols: 3), depth: 0).name == "ntuple, greedy")
        #expect(Agent.allCases.map(\.defaultDepth) == [0, 0, 0, 2, 1, 0])
        #expect(Agent.descriptions.hasPrefix("random (a uniformly random legal move), greedy (the best one-step score), "))
    }
}
