#!/usr/bin/env node
// A random legal-action agent for `g2048 serve` in plain Node.js (no packages):
// the protocol is newline-delimited JSON-RPC 2.0, so any language with pipes can train on Gym2048.
//
//     node Examples/node/random_agent.js [episodes] [seed]
"use strict";

const { spawn } = require("child_process");
const path = require("path");
const fs = require("fs");
const readline = require("readline");

function findBinary() {
  const repo = path.resolve(__dirname, "..", "..");
  const candidates = [process.env.G2048_BIN,
    path.join(repo, ".build", "release", "g2048"), path.join(repo, ".build", "debug", "g2048")];
  for (const candidate of candidates) {
    if (candidate && fs.existsSync(candidate)) return candidate;
  }
  return "g2048";
}

// A tiny seeded generator (mulberry32) so runs are reproducible.
function makeRandom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function main() {
  const episodes = Number(process.argv[2] || 5);
  const seed = Number(process.argv[3] || 42);
  const server = spawn(findBinary(), ["serve"], { stdio: ["pipe", "pipe", "inherit"] });
  const lines = readline.createInterface({ input: server.stdout })[Symbol.asyncIterator]();
  let nextId = 0;

  async function call(method, params) {
    const request = { jsonrpc: "2.0", id: ++nextId, method };
    if (params !== undefined) request.params = params;
    server.stdin.write(JSON.stringify(request) + "\n");
    const { value, done } = await lines.next();
    if (done) throw new Error("g2048 serve exited");
    const response = JSON.parse(value);
    if (response.error) throw new Error(`${response.error.message} (code ${response.error.code})`);
    return response.result;
  }

  const random = makeRandom(seed);
  const scores = [];
  let best = 0;
  for (let episode = 0; episode < episodes; episode++) {
    let { info } = await call("reset", { seed: seed + episode });
    for (;;) {
      const legal = [0, 1, 2, 3].filter((a) => info.action_mask[a]);
      const step = await call("step", { action: legal[Math.floor(random() * legal.length)] });
      info = step.info;
      if (step.terminated || step.truncated) break;
    }
    scores.push(info.score);
    best = Math.max(best, info.max_tile);
  }
  console.log((await call("render")).text);
  await call("close");
  const mean = scores.reduce((a, b) => a + b, 0) / scores.length;
  console.log(`${episodes} episodes: mean score ${mean.toFixed(1)}, best tile ${best}`);
}

main().catch((error) => {
  console.error(`error: ${error.message}`);
  process.exit(1);
});
