import Testing

@testable import ChatServer

/// `WorkInFlight`: a waiter is handed back once, when the last piece under way finishes — never
/// before — and is not kept when nothing is under way.
@Suite(.timeLimit(.minutes(1))) struct WorkInFlightTests {
    @Test func waitersAreHandedBackOnceWhenTheLastPieceFinishes() async {
        var work = WorkInFlight()
        work.start()
        work.start()
        var handedBack: [Int] = []
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let kept = work.wait(waiter)
            #expect(kept, "two pieces under way: the waiter is kept")
            handedBack.append(work.finish().count)
            let last = work.finish()
            handedBack.append(last.count)
            handedBack.append(work.count)
            for waiter in last { waiter.resume() }
            if !kept { waiter.resume() }
        }
        #expect(handedBack == [0, 1, 0], "handed back by the last finish only, and once")
    }

    @Test func withNothingUnderWayAWaiterIsNotKept() async {
        var work = WorkInFlight()
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let kept = work.wait(waiter)
            #expect(!kept)
            waiter.resume()
        }
        work.start()
        let waiters = work.finish()
        #expect(waiters.isEmpty, "nobody waited")
        #expect(work.count == 0)
    }
}
