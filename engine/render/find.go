package render

import (
	"errors"
	"os"
	"os/exec"
)

// BrowserEnv names an environment variable that overrides where the browser is.
const BrowserEnv = "CRAWLCONSOLE_BROWSER"

// ErrNoBrowser says no headless Chromium was found.
var ErrNoBrowser = errors.New("render: no chromium-headless-shell or chromium found (apt-get install --no-install-recommends chromium-headless-shell, or set " + BrowserEnv + ")")

// Find returns the path of a headless Chromium: path if not empty, else
// $CRAWLCONSOLE_BROWSER, else chromium-headless-shell or chromium on PATH.
func Find(path string) (string, error) {
	if path == "" {
		path = os.Getenv(BrowserEnv)
	}
	if path != "" {
		p, err := exec.LookPath(path)
		if err != nil {
			return "", errors.New("render: browser " + path + " not found or not executable: " + err.Error())
		}
		return p, nil
	}
	for _, name := range []string{"chromium-headless-shell", "chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", ErrNoBrowser
}
