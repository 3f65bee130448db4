// Game2048Play: terminal play, watching agents, recording and replaying episodes.
