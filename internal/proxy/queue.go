package proxy

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Judging happens off the exchange's path, in a bounded queue. Nothing is
// dropped: a full queue makes the exchange wait for room, so a proxy that
// cannot judge as fast as it forwards slows down rather than forgetting.
// The workers live while there is work, so their stacks (judging runs
// deep) are grown once, not once an exchange.
const (
	queueLen = 1024            // exchanges waiting; their bodies bounded by maxJudgeTotal
	idleExit = 2 * time.Second // a worker idle this long ends
)

// judgeQueue is the queue and its workers.
type judgeQueue struct {
	jobs chan *flight
	max  int // workers at most
	// pending counts the jobs put and not yet run, for a stop to wait on
	// (a WaitGroup would forbid a put while a stop waits).
	pending atomic.Int64
	// mu guards workers and the decision of a worker to end, so that a job
	// put as the last worker ends always finds a worker; done is signalled
	// under it when pending falls to zero.
	mu      sync.Mutex
	done    *sync.Cond
	workers int
}

func newJudgeQueue() *judgeQueue {
	q := &judgeQueue{jobs: make(chan *flight, queueLen), max: runtime.GOMAXPROCS(0)}
	q.done = sync.NewCond(&q.mu)
	return q
}

// put queues an exchange to judge, waiting for room if the queue is full.
func (q *judgeQueue) put(j *flight) {
	q.pending.Add(1)
	select {
	case q.jobs <- j:
	default:
		q.spawn(true) // full: every worker is busy
		q.jobs <- j
	}
	q.spawn(false)
}

// spawn starts a worker when there is none, or (more) when the queue holds
// a backlog, up to max.
func (q *judgeQueue) spawn(backlog bool) {
	q.mu.Lock()
	if q.workers == 0 || (backlog || len(q.jobs) > 1) && q.workers < q.max {
		q.workers++
		go q.work()
	}
	q.mu.Unlock()
}

func (q *judgeQueue) work() {
	t := time.NewTimer(idleExit)
	defer t.Stop()
	busy := false
	for {
		select {
		case j := <-q.jobs:
			j.run()
			if q.pending.Add(-1) == 0 {
				q.mu.Lock()
				q.done.Broadcast()
				q.mu.Unlock()
			}
			busy = true
		case <-t.C:
			t.Reset(idleExit)
			if busy {
				busy = false
				continue
			}
			q.mu.Lock()
			if len(q.jobs) > 0 {
				q.mu.Unlock()
				continue
			}
			q.workers--
			q.mu.Unlock()
			return
		}
	}
}

// wait returns once every job put has run.
func (q *judgeQueue) wait() {
	q.mu.Lock()
	for q.pending.Load() > 0 {
		q.done.Wait()
	}
	q.mu.Unlock()
}
