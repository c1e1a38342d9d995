import Dispatch
import ImagePipe
import Testing
@testable import ImagePipeCommand

/// `imagepipe serve`'s responses waiting for their clients count in `--max-memory` beside the
/// pictures being made: a picture that does not fit beside them is refused at once (the server
/// answers 503), never started past the budget, nor left waiting on a client's pace.
@Suite struct ResponseMemoryTests {
    private let megabyte = 1 << 20

    @Test func heldResponsesLeaveNoRoomForAPicture() {
        let budget = MemoryBudget(limit: 100 * megabyte)
        // Six responses of 15 MB that nobody reads: 90 MB held.
        for _ in 0..<6 { budget.hold(15 * megabyte) }
        #expect(budget.heldBytes == 90 * megabyte)
        // A picture of 20 MB would pass the budget beside them: refused, nothing reserved.
        #expect(!budget.reserveBesideResponses(20 * megabyte))
        // One of 10 MB fits.
        #expect(budget.reserveBesideResponses(10 * megabyte))
        budget.release(10 * megabyte)
        // Clients take their responses: the room comes back.
        for _ in 0..<6 { budget.letGo(15 * megabyte) }
        #expect(budget.heldBytes == 0)
        #expect(budget.reserveBesideResponses(100 * megabyte))
        budget.release(100 * megabyte)
    }

    @Test func aPictureAloneRunsOnlyWhenNoResponseIsHeld() {
        let budget = MemoryBudget(limit: 100 * megabyte)
        // Nothing else in memory: a picture that fits the limit always runs.
        #expect(budget.reserveBesideResponses(100 * megabyte))
        budget.release(100 * megabyte)
        budget.hold(1)
        #expect(!budget.reserveBesideResponses(100 * megabyte))
        budget.letGo(1)
    }

    @Test func aPictureWaitsForOtherPicturesNotForClients() async {
        let budget = MemoryBudget(limit: 100 * megabyte)
        budget.hold(30 * megabyte)
        #expect(budget.reserveBesideResponses(60 * megabyte))
        // 30 held + 60 at work + 40 > 100: it waits for the picture at work, which ends.
        let reserved = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: budget.reserveBesideResponses(40 * megabyte)) }
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) { budget.release(60 * megabyte) }
        }
        #expect(reserved)
        budget.release(40 * megabyte)
        // A response made meanwhile that leaves no room ends the wait with a refusal.
        #expect(budget.reserveBesideResponses(60 * megabyte))
        let refused = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: budget.reserveBesideResponses(40 * megabyte)) }
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) {
                budget.hold(50 * megabyte)
                budget.release(60 * megabyte)
            }
        }
        #expect(!refused)
        #expect(budget.heldBytes == 80 * megabyte)
    }

    @Test func aBatchsBudgetCountsHeldBytesToo() {
        let budget = MemoryBudget(limit: 100 * megabyte)
        budget.reserve(50 * megabyte) { _ in }
        budget.hold(40 * megabyte)
        // 50 + 40 + 20 > 100 while a picture is at work: it waits until that picture ends.
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) { budget.release(50 * megabyte) }
        budget.reserve(20 * megabyte) { _ in }
        budget.release(20 * megabyte)
        budget.letGo(40 * megabyte)
    }
}
