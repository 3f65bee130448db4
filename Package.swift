// swift-tools-version: 6.2
//
// Gym2048: a headless reinforcement-learning environment for 2048.
// No package dependencies: only the Swift toolchain.
// Licensed under the Apache License, Version 2.0: see LICENSE.
//
// Module graph (arrows point at what a module depends on):
//
//     g2048 (CLI) ──▶ Game2048Server ───▶ Game2048, Game2048JSON
//                 ├─▶ Game2048Learning ─▶ Game2048
//                 ├─▶ Game2048Play ─────▶ Game2048Learning, Game2048, Game2048JSON
//                 └───────────────────────▶ Game2048
//
// Game2048JSON is the one JSON reader and writer, shared by the protocol and the episode records.
//     RandomAgent, TDLearner (examples) ──▶ Game2048 (+ Game2048Learning)
//     RandomAgent ──▶ Game2048
//
// `Game2048` depends on nothing but the standard library.
import PackageDescription

let package = Package(
    name: "Gym2048",
    products: [
        .library(name: "Game2048", targets: ["Game2048"]),
        .library(name: "Game2048Server", targets: ["Game2048Server"]),
        .library(name: "Game2048Learning", targets: ["Game2048Learning"]),
        .executable(name: "g2048", targets: ["g2048"]),
    ],
    targets: [
        .target(name: "Game2048"),
        .target(name: "Game2048JSON"),
        .target(name: "Game2048Server", dependencies: ["Game2048", "Game2048JSON"]),
        .target(name: "Game2048Learning", dependencies: ["Game2048"]),
        .target(name: "Game2048Play", dependencies: ["Game2048", "Game2048Learning", "Game2048JSON"]),
        .executableTarget(name: "g2048", dependencies: ["Game2048", "Game2048JSON", "Game2048Server", "Game2048Learning", "Game2048Play"]),
        .executableTarget(name: "RandomAgent", dependencies: ["Game2048"], path: "Examples/RandomAgent"),
        .executableTarget(name: "TDLearner", dependencies: ["Game2048", "Game2048Learning"], path: "Examples/TDLearner"),
        .testTarget(name: "Game2048Tests", dependencies: ["Game2048"]),
        .testTarget(name: "Game2048JSONTests", dependencies: ["Game2048JSON"]),
        .testTarget(name: "Game2048ServerTests", dependencies: ["Game2048Server", "Game2048", "Game2048JSON"]),
        .testTarget(name: "Game2048LearningTests", dependencies: ["Game2048Learning", "Game2048"]),
        .testTarget(name: "Game2048PlayTests", dependencies: ["Game2048Play", "Game2048Learning", "Game2048", "Game2048JSON"]),
        .testTarget(name: "g2048Tests", dependencies: ["g2048", "Game2048", "Game2048Learning"]),
    ]
)
