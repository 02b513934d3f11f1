package route

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/crawlconsole/crawlconsole/engine/egress"
)

// MetaStore is the part of the store the account table is kept in: its meta table.
type MetaStore interface {
	GetMeta(key string) ([]byte, error)
	SetMeta(key string, v []byte)
}

// Accounts persists the egress account table and the host_disable_list in the
// store's meta table (egress.AccountStore and egress.DisableListStore). Saves are
// asynchronous (latest value wins) so that rotation, which may run under the
// engine's lock, never waits on the store writer: Run writes them.
type Accounts struct {
	st   MetaStore
	kick chan struct{}
	// warn reports a stored egress that Load left out (its secret reference no
	// longer resolves).
	warn func(msg string)

	mu       sync.Mutex
	accounts []byte
	disabled []byte
}

// NewAccounts keeps the account table in st; warn reports a stored egress that
// cannot be loaded any more.
func NewAccounts(st MetaStore, warn func(msg string)) *Accounts {
	return &Accounts{st: st, kick: make(chan struct{}, 1), warn: warn}
}

// The meta keys of the account table and the host_disable_list.
const (
	AccountsMetaKey = "egress.accounts.v1"
	DisabledMetaKey = "egress.disabled.v1"
)

// PersistedAccount is an account as stored. A password given as an env/file
// reference is stored as that reference; a literal password is never written to
// disk: the config or flags that gave it give it again on the next run (OpenTable
// merges them by name), and an account without them cannot authenticate.
type PersistedAccount struct {
	Name, Kind, Address, User, Secret, Node, State string
}

// Load implements egress.AccountStore.
func (m *Accounts) Load() ([]egress.Account, error) {
	b, err := m.st.GetMeta(AccountsMetaKey)
	if err != nil || len(b) == 0 {
		return nil, nil
	}
	var ps []PersistedAccount
	if err := json.Unmarshal(b, &ps); err != nil {
		return nil, fmt.Errorf("stored egress table is unreadable: %v", err)
	}
	out := make([]egress.Account, 0, len(ps))
	for _, p := range ps {
		sec, err := egress.ParseSecret(p.Secret)
		if err != nil {
			// A stored reference that no longer resolves (an unset variable, a
			// missing file) never stops the start: that egress is left out, and
			// said so. The error names the reference, never a password.
			m.warn(fmt.Sprintf("stored egress %s skipped: %v; it is left out of the account table (give it again in the config or flags)", p.Name, err))
			continue
		}
		out = append(out, egress.Account{Name: p.Name, Kind: egress.Kind(p.Kind), Address: p.Address, User: p.User,
			Secret: sec, Node: p.Node, State: egress.AccountState(p.State)})
	}
	return out, nil
}

// Save implements egress.AccountStore.
func (m *Accounts) Save(as []egress.Account) error {
	ps := make([]PersistedAccount, len(as))
	for i, a := range as {
		ps[i] = PersistedAccount{Name: a.Name, Kind: string(a.Kind), Address: a.Address, User: a.User,
			Secret: a.Secret.Ref(), Node: a.Node, State: string(a.State)}
	}
	b, err := json.Marshal(ps)
	if err != nil {
		return err
	}
	m.mu.Lock()
	m.accounts = b
	m.mu.Unlock()
	m.signal()
	return nil
}

// LoadDisabled implements egress.DisableListStore.
func (m *Accounts) LoadDisabled() ([]egress.DisabledHost, error) {
	b, err := m.st.GetMeta(DisabledMetaKey)
	if err != nil || len(b) == 0 {
		return nil, nil
	}
	var list []egress.DisabledHost
	return list, json.Unmarshal(b, &list)
}

// SaveDisabled implements egress.DisableListStore.
func (m *Accounts) SaveDisabled(list []egress.DisabledHost) error {
	b, err := json.Marshal(list)
	if err != nil {
		return err
	}
	m.mu.Lock()
	m.disabled = b
	m.mu.Unlock()
	m.signal()
	return nil
}

func (m *Accounts) signal() {
	select {
	case m.kick <- struct{}{}:
	default:
	}
}

// write stores whatever changed since the last call.
func (m *Accounts) write() {
	m.mu.Lock()
	a, d := m.accounts, m.disabled
	m.accounts, m.disabled = nil, nil
	m.mu.Unlock()
	if a != nil {
		m.st.SetMeta(AccountsMetaKey, a)
	}
	if d != nil {
		m.st.SetMeta(DisabledMetaKey, d)
	}
}

// Run writes saves until stop closes, then the last ones.
func (m *Accounts) Run(stop <-chan struct{}) {
	for {
		select {
		case <-m.kick:
			m.write()
		case <-stop:
			m.write()
			return
		}
	}
}
