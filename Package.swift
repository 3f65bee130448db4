// swift-tools-version: 6.2
//
// Gym2048: a headless reinforcement-learning environment for 2048.
// No package dependencies: only the Swift toolchain.
// Licensed under the Apache License, Version 2.0: see LICENSE.
//
// Module graph (arrows point at what a module depends on):
//
//     g2048 (CLI) ──▶ GymServer ───▶ Game2048, GymJSON, GymSystem, Memorize, GymGames, GymPlay (games records)
//                 ├─▶ Game2048Training, Game2048Solver, Game2048Search, Game2048Network (the learner, below)
//                 ├─▶ GymPlay ─────▶ Game2048Search, Game2048Solver, Game2048, GymJSON, GymSystem, GymGames
//                 ├─▶ GymGames ─────────▶ Game2048, Memorize
//                 └───────────────────────▶ Game2048, GymSystem
//     Game2048 ──▶ GymCore ◀── Memorize
//              └─▶ CPackedLanes
//
// The learner is four modules, each depending only on those below it (and on Game2048, GymJSON, GymSystem):
//
//     Game2048Training ──▶ Game2048Solver ──▶ Game2048Search ──▶ Game2048Network ──▶ CPrefetch
//       TD, TC and OTD+TC   the exact solver:   expectimax, the     the n-tuple network, its value functions and
//       learners, the run    solutions, their    players, their      weights files (with the training metadata),
//       and its stops,       files and exact     evaluation          the afterstate table it may carry and the
//       metrics, curves,     evaluation of a                         packed boards that table and the solver
//       afterstate sweep     policy                                  share
//
// Gym2048C (the C library) ──▶ Game2048Network, Game2048Search, Game2048Solver, Game2048Training: it plays, solves and
// trains (a learner handle runs what `g2048 train` runs); and GymPlay, for games records (written and verified by replay).
//
// GymJSON (──▶ Game2048) is the one JSON reader and writer, shared by the protocol and the
// episode records, and declares the rules options once (`RulesOption`).
// GymSystem is the one system layer (files, descriptors, clocks, errno text, number
// formatting, `FileError`, an HTTP client's sockets): the only module besides the terminal code that imports Glibc.
//     TDLearner (example) ──▶ Game2048, Game2048Network, Game2048Search
//     RandomAgent (example) ──▶ Game2048
//
// GymCore is the contract every game shares: the seeded generators, option values and their
// declarations (`GameOption`, `OptionConstraint`), the autoreset modes. `Game2048` depends on nothing
// but GymCore (and re-exports it) and CPackedLanes; `Memorize`, the second game (a card-matching memory
// game), on GymCore alone: neither game depends on the other.
// CPrefetch is one C header: the cache prefetch the learner's weight reads ask for, which Swift
// cannot spell. CPackedLanes is the vector step's 4×4 board work eight lanes at a time in AVX-512,
// which Swift's baseline x86-64 target cannot spell either; Game2048 calls it where the processor has it.
//
// Products are what a user depends on: the rules (Game2048, Memorize, GymCore), the server and the learner's
// four modules as libraries, GymJSON because JSONValue is part of the server's API, and the CLI.
// GymPlay and GymSystem are internal: what only the CLI and the tests use is
// `package`, not `public`.
import PackageDescription

let package = Package(
    name: "Gym2048",
    products: [
        .library(name: "Game2048", targets: ["Game2048"]),
        .library(name: "GymCore", targets: ["GymCore"]),
        .library(name: "Memorize", targets: ["Memorize"]),
        .library(name: "GymServer", targets: ["GymServer"]),
        .library(name: "Game2048Network", targets: ["Game2048Network"]),
        .library(name: "Game2048Search", targets: ["Game2048Search"]),
        .library(name: "Game2048Solver", targets: ["Game2048Solver"]),
        .library(name: "Game2048Training", targets: ["Game2048Training"]),
        .library(name: "GymJSON", targets: ["GymJSON"]),
        .executable(name: "g2048", targets: ["g2048"]),
        // The engine for C and any FFI (libgym2048.so; its header is Sources/CGym2048/include/gym2048.h).
        .library(name: "gym2048", type: .dynamic, targets: ["Gym2048C"]),
    ],
    targets: [
        .target(name: "GymCore"),
        .target(name: "Game2048", dependencies: ["GymCore", "CPackedLanes"]),
        // The 4×4 vector step's board work in AVX-512, chosen at run time where the processor has it.
        .target(name: "CPackedLanes"),
        .target(name: "Memorize", dependencies: ["GymCore"]),
        // The list of games every door makes by name.
        .target(name: "GymGames", dependencies: ["Game2048", "Memorize"]),
        .target(name: "GymJSON", dependencies: ["Game2048"]),
        .target(name: "GymSystem"),
        .target(name: "GymServer", dependencies: ["Game2048", "GymJSON", "GymSystem", "Memorize", "GymGames", "GymPlay"]),
        .target(name: "CPrefetch"),
        .target(name: "CGym2048"),
        // Pins the glibc symbol versions of the self-contained builds (see its baseline.c).
        .target(name: "CGlibcBaseline"),
        .target(
            name: "Gym2048C",
            dependencies: [
                "Game2048", "GymJSON", "GymServer", "GymPlay", "Game2048Network", "Game2048Search", "Game2048Solver", "Game2048Training",
                "CGym2048",
                "CGlibcBaseline",
            ]),
        // The learner, in four layers: each depends only on those above it.
        .target(name: "Game2048Network", dependencies: ["Game2048", "GymJSON", "GymSystem", "CPrefetch"]),
        .target(name: "Game2048Search", dependencies: ["Game2048", "Game2048Network", "GymJSON"]),
        .target(name: "Game2048Solver", dependencies: ["Game2048", "Game2048Network", "Game2048Search", "GymJSON", "GymSystem"]),
        .target(name: "Game2048Training", dependencies: ["Game2048", "Game2048Network", "Game2048Solver", "GymSystem"]),
        .target(
            name: "GymPlay",
            dependencies: ["Game2048", "Game2048Network", "Game2048Search", "Game2048Solver", "GymJSON", "GymSystem", "GymGames"]),
        .executableTarget(
            name: "g2048",
            dependencies: [
                "Game2048", "GymJSON", "GymSystem", "GymServer", "Game2048Network", "Game2048Search", "Game2048Solver", "Game2048Training",
                "GymPlay", "GymGames",
                "CGlibcBaseline",
            ]),
        .executableTarget(name: "RandomAgent", dependencies: ["Game2048"], path: "Examples/RandomAgent"),
        .executableTarget(name: "TDLearner", dependencies: ["Game2048", "Game2048Network", "Game2048Search"], path: "Examples/TDLearner"),
        // The test targets' shared scratch folder (not a product).
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        // A game that exists only in the tests, served by every door from its declaration.
        .target(name: "TestGames", dependencies: ["GymCore"], path: "Tests/TestGames"),
        .testTarget(name: "Game2048Tests", dependencies: ["Game2048", "GymCore", "CPackedLanes"]),
        .testTarget(name: "MemorizeTests", dependencies: ["Memorize", "GymCore"]),
        .testTarget(name: "GymJSONTests", dependencies: ["GymJSON"]),
        .testTarget(name: "GymSystemTests", dependencies: ["GymSystem", "TestSupport"]),
        // Snapshots/ are read by path (#filePath), not bundled: excluded, so that SwiftPM does not warn about them.
        .testTarget(
            name: "GymServerTests", dependencies: ["GymServer", "Game2048", "GymJSON", "GymGames", "TestGames"], exclude: ["Snapshots"]),
        // The learner's four modules are tested together: a network's tests train it, a solver's measure players.
        .testTarget(
            name: "Game2048LearningTests",
            dependencies: ["Game2048Network", "Game2048Search", "Game2048Solver", "Game2048Training", "Game2048", "GymSystem", "TestSupport"]),
        // The C library's functions, called as C calls them.
        .testTarget(name: "Gym2048CTests", dependencies: ["Gym2048C", "CGym2048", "Game2048Network", "TestSupport"]),
        .testTarget(
            name: "GymPlayTests",
            dependencies: ["GymPlay", "Game2048Network", "Game2048Search", "Game2048", "GymJSON", "GymSystem", "Memorize", "GymGames", "TestSupport"]),
        .testTarget(
            name: "g2048Tests",
            dependencies: [
                "g2048", "Game2048", "Game2048Network", "Game2048Solver", "Game2048Training", "GymSystem", "Memorize", "GymCore", "GymGames",
                "TestGames", "TestSupport",
            ],
            exclude: ["Snapshots"]),
    ]
)
