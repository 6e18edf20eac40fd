// Package watch reports when files change on disk, however they are saved.
//
// Editors save in many ways (in place, temp file renamed over the target,
// rename-away then create, delete then create), and a watch on the file itself
// is lost by all but the first. So the package watches the parent directory of
// every target, or its nearest existing ancestor while the parent is missing,
// and decides what changed by comparing content hashes rather than by
// interpreting event sequences.
package watch

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// ErrClosed is returned by Set once Close has been called.
var ErrClosed = errors.New("watch: watcher is closed")

// Watcher watches a set of files through their parent directories.
type Watcher struct {
	debounce time.Duration
	onChange func(paths []string)
	fsw      *fsnotify.Watcher

	// resync is signalled when the kernel dropped events, so that every target
	// is re-checked; buffered so the signaller never blocks.
	resync chan struct{}
	wg     sync.WaitGroup

	// dirsMu serialises reconcile, which stats directories and adds and
	// removes watches outside mu; it guards watched. Taken before mu,
	// never while holding it.
	dirsMu  sync.Mutex
	watched map[string]bool // directories with a watch we added
	// isDir reports whether a path is a directory (os.Stat; tests stand in
	// a slow disk).
	isDir func(path string) bool

	mu      sync.Mutex
	closed  bool
	targets map[string]fileState // target path → last recorded state
	pending map[string]bool      // targets that may have changed since the last flush
	quiet   *time.Timer          // fires once events have been quiet for debounce
	// burstStart is when the first of the pending events arrived.
	burstStart time.Time
}

// New starts a watcher. onChange is called from the watcher's own goroutine,
// never concurrently with itself, with the sorted, deduplicated target paths
// whose content changed (or that appeared or disappeared) once events have
// been quiet for debounce. It is never called after Close returns.
//
// onChange may call Set but must not call Close: Close waits for the goroutine
// that runs onChange.
func New(debounce time.Duration, onChange func(paths []string)) (*Watcher, error) {
	if onChange == nil {
		return nil, errors.New("watch: onChange is nil")
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch: %w", err)
	}
	quiet := time.NewTimer(time.Hour)
	quiet.Stop()
	w := &Watcher{
		debounce: max(debounce, 0),
		onChange: onChange,
		fsw:      fsw,
		resync:   make(chan struct{}, 1),
		targets:  map[string]fileState{},
		watched:  map[string]bool{},
		isDir:    isDir,
		pending:  map[string]bool{},
		quiet:    quiet,
	}
	w.wg.Add(2)
	go w.run()
	go w.drainErrors()
	return w, nil
}

// Close stops the watcher and waits for its goroutines to end.
func (w *Watcher) Close() error {
	w.mu.Lock()
	w.closed = true
	w.quiet.Stop()
	w.mu.Unlock()

	// Closing fsnotify closes its channels, which ends both goroutines.
	err := w.fsw.Close()
	w.wg.Wait()
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	return nil
}

// run is the only goroutine that calls onChange, which keeps the calls
// sequential.
func (w *Watcher) run() {
	defer w.wg.Done()
	for {
		select {
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return
			}
			w.handle(ev)
		case <-w.resync:
			w.recheckAll()
		case <-w.quiet.C:
			if changed := w.flush(); len(changed) > 0 {
				w.onChange(changed)
			}
		}
	}
}

// drainErrors keeps fsnotify's error channel moving: fsnotify can block on
// sending an error while holding its own lock, and run may be waiting on that
// lock inside Add. Errors are otherwise not actionable here, except an
// overflow, after which any target may have changed unseen.
func (w *Watcher) drainErrors() {
	defer w.wg.Done()
	for err := range w.fsw.Errors {
		if errors.Is(err, fsnotify.ErrEventOverflow) {
			select {
			case w.resync <- struct{}{}:
			default:
			}
		}
	}
}
