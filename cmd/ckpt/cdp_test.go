package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// One headless Chromium serves every browser test of the package: it starts
// on the first test that needs it (about 5 s, most of a test's former cost,
// paid twice per test when each render launched its own browser) and
// TestMain closes it. Each render opens its own tab. The tests speak the
// DevTools protocol over --remote-debugging-pipe (NUL-terminated JSON on
// file descriptors 3 and 4), so no WebSocket library is needed.

// cdpMsg is one DevTools message: a reply (ID set) or an event (Method set).
type cdpMsg struct {
	ID        int64           `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *cdpError       `json:"error,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
}

type cdpError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// browser is a running Chromium and the routing of its messages.
type browser struct {
	cmd    *exec.Cmd
	dir    string
	stderr lockedBuffer

	wmu sync.Mutex // serialises writes to the pipe
	out *os.File

	mu      sync.Mutex
	next    int64
	pending map[int64]chan cdpMsg
	events  map[string]chan cdpMsg // by session
	dead    error
}

var (
	sharedBrowserOnce sync.Once
	sharedBrowser     *browser
	sharedBrowserErr  error
)

// theBrowser returns the package's Chromium, starting it on first use; it
// skips when no Chromium is installed.
func theBrowser(t *testing.T) *browser {
	t.Helper()
	bin := chromium(t)
	sharedBrowserOnce.Do(func() { sharedBrowser, sharedBrowserErr = startBrowser(bin) })
	if sharedBrowserErr != nil {
		t.Fatalf("chromium: %v", sharedBrowserErr)
	}
	return sharedBrowser
}

// closeBrowser stops the package's Chromium if a test started it.
func closeBrowser() {
	if sharedBrowser != nil {
		sharedBrowser.close()
	}
}

func startBrowser(bin string) (*browser, error) {
	dir, err := os.MkdirTemp("", "ckpt-chromium")
	if err != nil {
		return nil, err
	}
	toChrome, ours, err := os.Pipe() // Chromium reads fd 3
	if err != nil {
		return nil, err
	}
	theirs, fromChrome, err := os.Pipe() // Chromium writes fd 4
	if err != nil {
		return nil, err
	}
	b := &browser{dir: dir, out: ours, pending: map[int64]chan cdpMsg{}, events: map[string]chan cdpMsg{}}
	b.cmd = exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--user-data-dir="+dir, "--remote-debugging-pipe", "--no-first-run", "about:blank")
	b.cmd.ExtraFiles = []*os.File{toChrome, fromChrome}
	b.cmd.Stderr = &b.stderr
	if err := b.cmd.Start(); err != nil {
		return nil, err
	}
	toChrome.Close()
	fromChrome.Close()
	go b.readLoop(theirs)
	return b, nil
}

func (b *browser) readLoop(f *os.File) {
	r := bufio.NewReaderSize(f, 1<<20)
	for {
		raw, err := r.ReadBytes(0)
		if err != nil {
			b.mu.Lock()
			b.dead = fmt.Errorf("chromium closed its pipe (%v)", err)
			for id, ch := range b.pending {
				close(ch)
				delete(b.pending, id)
			}
			b.mu.Unlock()
			return
		}
		var m cdpMsg
		if json.Unmarshal(raw[:len(raw)-1], &m) != nil {
			continue
		}
		b.mu.Lock()
		if m.ID != 0 {
			if ch, ok := b.pending[m.ID]; ok {
				ch <- m
				delete(b.pending, m.ID)
			}
		} else if ch, ok := b.events[m.SessionID]; ok {
			select {
			case ch <- m:
			default: // a page flooding events must not stall the browser's replies
			}
		}
		b.mu.Unlock()
	}
}

// call sends method to the session ("" for the browser) and decodes its
// result into res (if not nil).
func (b *browser) call(ctx context.Context, session, method string, params, res any) error {
	p, err := json.Marshal(params)
	if err != nil {
		return err
	}
	ch := make(chan cdpMsg, 1)
	b.mu.Lock()
	if b.dead != nil {
		b.mu.Unlock()
		return b.dead
	}
	b.next++
	id := b.next
	b.pending[id] = ch
	b.mu.Unlock()
	msg, _ := json.Marshal(cdpMsg{ID: id, Method: method, Params: p, SessionID: session})
	b.wmu.Lock()
	_, err = b.out.Write(append(msg, 0))
	b.wmu.Unlock()
	if err != nil {
		return err
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return fmt.Errorf("%s: chromium went away: %s", method, b.stderr.String())
		}
		if m.Error != nil {
			return fmt.Errorf("%s: %s (%d)", method, m.Error.Message, m.Error.Code)
		}
		if res != nil {
			return json.Unmarshal(m.Result, res)
		}
		return nil
	case <-ctx.Done():
		b.mu.Lock()
		delete(b.pending, id)
		b.mu.Unlock()
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

func (b *browser) close() {
	b.call(context.Background(), "", "Browser.close", struct{}{}, nil)
	b.out.Close()
	done := make(chan struct{})
	go func() { b.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		b.cmd.Process.Kill()
		<-done
	}
	os.RemoveAll(b.dir)
}

// lockedBuffer is Chromium's stderr: written by the copying goroutine,
// read in failure messages.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// page is one tab of the browser, attached in flat mode.
type page struct {
	b       *browser
	target  string
	session string
	events  chan cdpMsg
}

func (b *browser) newPage(ctx context.Context) (*page, error) {
	var tgt struct {
		TargetID string `json:"targetId"`
	}
	if err := b.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &tgt); err != nil {
		return nil, err
	}
	var att struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": tgt.TargetID, "flatten": true}, &att); err != nil {
		return nil, err
	}
	p := &page{b: b, target: tgt.TargetID, session: att.SessionID, events: make(chan cdpMsg, 4096)}
	b.mu.Lock()
	b.events[p.session] = p.events
	b.mu.Unlock()
	return p, nil
}

func (p *page) call(ctx context.Context, method string, params, res any) error {
	return p.b.call(ctx, p.session, method, params, res)
}

func (p *page) close() {
	p.b.call(context.Background(), "", "Target.closeTarget", map[string]any{"targetId": p.target}, nil)
	p.b.mu.Lock()
	delete(p.b.events, p.session)
	p.b.mu.Unlock()
}

// load navigates to the file and waits for its load event, returning the
// console messages and uncaught exceptions seen until then, one line each,
// as --enable-logging printed them (":CONSOLE(...)").
func (p *page) load(ctx context.Context, path string, width, height int) ([]string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	for _, c := range []struct {
		method string
		params any
	}{
		{"Page.enable", struct{}{}},
		{"Runtime.enable", struct{}{}},
		{"Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}},
		{"Emulation.setScrollbarsHidden", map[string]any{"hidden": true}},
		{"Page.navigate", map[string]any{"url": "file://" + abs}},
	} {
		if err := p.call(ctx, c.method, c.params, nil); err != nil {
			return nil, err
		}
	}
	var console []string
	for {
		select {
		case m := <-p.events:
			switch m.Method {
			case "Page.loadEventFired":
				return console, nil
			case "Runtime.consoleAPICalled", "Runtime.exceptionThrown":
				console = append(console, consoleLine(m))
			}
		case <-ctx.Done():
			return console, fmt.Errorf("loading %s: %w", path, ctx.Err())
		}
	}
}

// drain returns the console messages that arrived after the load event.
func (p *page) drain() []string {
	var console []string
	for {
		select {
		case m := <-p.events:
			if m.Method == "Runtime.consoleAPICalled" || m.Method == "Runtime.exceptionThrown" {
				console = append(console, consoleLine(m))
			}
		default:
			return console
		}
	}
}

func consoleLine(m cdpMsg) string {
	var ev struct {
		Type string `json:"type"`
		Args []struct {
			Value       any    `json:"value"`
			Description string `json:"description"`
		} `json:"args"`
		ExceptionDetails struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	json.Unmarshal(m.Params, &ev)
	if m.Method == "Runtime.exceptionThrown" {
		return ":CONSOLE(exception) " + ev.ExceptionDetails.Text + " " + ev.ExceptionDetails.Exception.Description
	}
	var parts []string
	for _, a := range ev.Args {
		if a.Description != "" {
			parts = append(parts, a.Description)
		} else {
			parts = append(parts, fmt.Sprint(a.Value))
		}
	}
	return ":CONSOLE(" + ev.Type + ") " + strings.Join(parts, " ")
}

// dom returns the document's markup, as --dump-dom printed it.
func (p *page) dom(ctx context.Context) (string, error) {
	var res struct {
		Result struct {
			Value string `json:"value"`
		} `json:"result"`
	}
	err := p.call(ctx, "Runtime.evaluate", map[string]any{"expression": "document.documentElement.outerHTML", "returnByValue": true}, &res)
	return res.Result.Value, err
}

// screenshot returns a PNG of the viewport after two animation frames (the
// layout of the loaded page painted).
func (p *page) screenshot(ctx context.Context) ([]byte, error) {
	frames := "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
	if err := p.call(ctx, "Runtime.evaluate", map[string]any{"expression": frames, "awaitPromise": true}, nil); err != nil {
		return nil, err
	}
	var res struct {
		Data string `json:"data"`
	}
	if err := p.call(ctx, "Page.captureScreenshot", map[string]any{"format": "png"}, &res); err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(res.Data)
}
