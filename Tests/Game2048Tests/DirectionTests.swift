import Testing
@testable import Game2048
