package approvals

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/codewhale-ls/codewhale-ls/gate/policyfile"
)

// Settings are codewhale-ls's own settings for receipts, read from
// <codewhale home>/codewhale-ls/settings.toml (docs/receipts.md): the
// user's alone, like the log they govern. A missing file is the
// defaults.
type Settings struct {
	// LogInputs keeps each call's input (masked) in its receipt;
	// `log_inputs = false` keeps receipts without any.
	LogInputs bool
	// Rotation is the log's size and history ([log] max_mib,
	// generations).
	Rotation Rotation
	// Export is the OpenTelemetry export ([export]).
	Export ExportSettings
	// Path is the file the settings were read from.
	Path string
}

// ExportSettings turn on the OpenTelemetry export of receipts
// (approvals/otelexport); the standard OTEL_EXPORTER_OTLP_* variables
// fill in what they leave out.
type ExportSettings struct {
	// Enabled: `otlp = true`.
	Enabled bool
	// Endpoint, Protocol and Headers are OTLP's (OTEL_EXPORTER_OTLP_*).
	Endpoint string
	Protocol string
	Headers  map[string]string
}

// DefaultSettings are the settings without a file: inputs logged, the
// default rotation, no export.
func DefaultSettings() Settings {
	return Settings{LogInputs: true, Rotation: DefaultRotation}
}

// SettingsPath is <codewhaleHome>/codewhale-ls/settings.toml.
func SettingsPath(codewhaleHome string) string {
	return filepath.Join(codewhaleHome, "codewhale-ls", "settings.toml")
}

// settingsFile is settings.toml as written.
type settingsFile struct {
	LogInputs *bool `toml:"log_inputs"`
	Log       struct {
		MaxMiB      *int64 `toml:"max_mib"`
		Generations *int   `toml:"generations"`
	} `toml:"log"`
	Export struct {
		OTLP     bool              `toml:"otlp"`
		Endpoint string            `toml:"endpoint"`
		Protocol string            `toml:"protocol"`
		Headers  map[string]string `toml:"headers"`
	} `toml:"export"`
}

// LoadSettings reads the settings under codewhaleHome ("" gives the
// defaults). A file that cannot be read or holds a mistake is an error
// naming the file, the line and the key: the caller refuses to record,
// so no decision runs on settings the user did not write (a typo in
// `log_inputs = false` must not log inputs).
func LoadSettings(codewhaleHome string) (Settings, error) {
	s := DefaultSettings()
	if codewhaleHome == "" {
		return s, nil
	}
	s.Path = SettingsPath(codewhaleHome)
	src, err := policyfile.Read(s.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, fmt.Errorf("cannot read codewhale-ls's settings %s: %w", s.Path, err)
	}
	var f settingsFile
	meta, err := toml.Decode(string(src), &f)
	if err != nil {
		return s, fmt.Errorf("codewhale-ls's settings %s: %w", s.Path, err)
	}
	if unknown := meta.Undecoded(); len(unknown) > 0 {
		keys := make([]string, len(unknown))
		for i, k := range unknown {
			keys[i] = k.String()
		}
		sort.Strings(keys)
		return s, fmt.Errorf("codewhale-ls's settings %s: unknown key %s: correct it to one of log_inputs, [log] max_mib and generations, [export] otlp, endpoint, protocol and headers, or remove it (docs/receipts.md)", s.Path, strings.Join(keys, ", "))
	}
	if f.LogInputs != nil {
		s.LogInputs = *f.LogInputs
	}
	if m := f.Log.MaxMiB; m != nil {
		if *m < 1 {
			return s, fmt.Errorf("codewhale-ls's settings %s: [log] max_mib must be at least 1, got %d", s.Path, *m)
		}
		s.Rotation.MaxBytes = *m << 20
	}
	if g := f.Log.Generations; g != nil {
		if *g < 0 {
			return s, fmt.Errorf("codewhale-ls's settings %s: [log] generations must be 0 or more, got %d", s.Path, *g)
		}
		s.Rotation.Generations = *g
	}
	s.Export = ExportSettings{Enabled: f.Export.OTLP, Endpoint: f.Export.Endpoint, Protocol: f.Export.Protocol, Headers: f.Export.Headers}
	return s, nil
}
