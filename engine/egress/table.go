package egress

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
)

// AccountState is an account's place in the table.
type AccountState string

// Account states.
const (
	AccountFree     AccountState = "free"     // not assigned to any node
	AccountAssigned AccountState = "assigned" // on a node's list (Account.Node)
)

// Account is one row of the egress account table (seed 003 table 4: VPN connection,
// IP address, user, password, assignment). Secret prints masked; stores persist
// Secret.Persisted() and read it back with ParseSecret.
type Account struct {
	Name    string       // e1, e2, ... or as given
	Kind    Kind         //
	Address string       // bind IP or proxy host:port
	User    string       // proxy user
	Secret  Secret       // proxy password (masked everywhere)
	Node    string       // assigned node, "" when free
	State   AccountState //
}

// Spec returns the account as a dialable spec.
func (a Account) Spec() Spec {
	return Spec{Name: a.Name, Kind: a.Kind, Address: a.Address, User: a.User, Secret: a.Secret}
}

func accountOf(s Spec) Account {
	return Account{Name: s.Name, Kind: s.Kind, Address: s.Address, User: s.User, Secret: s.Secret, State: AccountFree}
}

// AccountStore persists the account table; the engine backs it with its store.
type AccountStore interface {
	Load() ([]Account, error)
	Save([]Account) error
}

// MemoryStore is an AccountStore in memory (tests, and crawls without a database).
// It also keeps the host_disable_list (DisableListStore).
type MemoryStore struct {
	mu       sync.Mutex
	accounts []Account
	disabled []DisabledHost
	saves    int
}

// Load returns a copy of what was saved last.
func (m *MemoryStore) Load() ([]Account, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.accounts), nil
}

// Save keeps a copy of accounts.
func (m *MemoryStore) Save(accounts []Account) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.accounts = slices.Clone(accounts)
	m.saves++
	return nil
}

// LoadDisabled returns the host_disable_list saved last.
func (m *MemoryStore) LoadDisabled() ([]DisabledHost, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.disabled), nil
}

// SaveDisabled keeps a copy of the host_disable_list.
func (m *MemoryStore) SaveDisabled(list []DisabledHost) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.disabled = slices.Clone(list)
	return nil
}

// Saves counts Save calls.
func (m *MemoryStore) Saves() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.saves
}

// Table is the egress account table: every egress the crawl owns and which node it
// is assigned to. It plays the master's role of seed 003 (Master) on one box; every
// change is saved to its AccountStore. Safe for concurrent use.
type Table struct {
	store AccountStore

	mu       sync.Mutex
	accounts []Account
	saveErr  error
}

// ErrUnknownEgress is returned for a name that is not in the table.
var ErrUnknownEgress = errors.New("no such egress")

// OpenTable loads the table from store and merges specs from the config or flags:
// a spec whose name is already stored replaces that account's address and
// credentials (the config is what the user set now) but keeps its assignment; others
// are appended. store may be nil (nothing persisted).
func OpenTable(store AccountStore, specs []Spec) (*Table, error) {
	t := &Table{store: store}
	if store != nil {
		loaded, err := store.Load()
		if err != nil {
			return nil, fmt.Errorf("egress account table: load: %w", err)
		}
		t.accounts = loaded
	}
	for _, s := range specs {
		if s.Name == "" {
			s.Name = t.nextName()
		}
		if i := t.index(s.Name); i >= 0 {
			node, state := t.accounts[i].Node, t.accounts[i].State
			t.accounts[i] = accountOf(s)
			t.accounts[i].Node, t.accounts[i].State = node, state
		} else {
			t.accounts = append(t.accounts, accountOf(s))
		}
	}
	if err := t.save(); err != nil {
		return nil, err
	}
	return t, nil
}

// Add parses spec and adds it to the table as a free egress (`:egress add SPEC`),
// naming it e<N> unless it says NAME=. A name already in the table is refused. The
// spec comes from a console session, so it is parsed with ParseSessionSpec: a
// ${env:...}/${file:...} password reference is refused, never resolved.
func (t *Table) Add(spec string) (Account, error) {
	s, err := ParseSessionSpec(spec)
	if err != nil {
		return Account{}, err
	}
	return t.AddSpec(s)
}

// AddSpec adds a parsed spec as a free egress, as Add does (a worker adds what its
// master grants it at run time, M4).
func (t *Table) AddSpec(s Spec) (Account, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s.Name == "" {
		s.Name = t.nextName()
	}
	if t.index(s.Name) >= 0 {
		return Account{}, &SpecError{Name: s.Name, Masked: s.Masked(), Reason: "name already in the table"}
	}
	a := accountOf(s)
	t.accounts = append(t.accounts, a)
	return a, t.save()
}

// Remove deletes an egress from the table (`:egress rm NAME`).
func (t *Table) Remove(name string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	i := t.index(name)
	if i < 0 {
		return fmt.Errorf("egress %s: %w", name, ErrUnknownEgress)
	}
	t.accounts = slices.Delete(t.accounts, i, i+1)
	return t.save()
}

// Assign implements Master: the node's assigned egresses first, topped up to n with
// free ones in table order.
func (t *Table) Assign(node string, n int) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var names []string
	for _, a := range t.accounts {
		if a.State == AccountAssigned && a.Node == node {
			names = append(names, a.Name)
		}
	}
	changed := false
	for i := range t.accounts {
		if len(names) >= n {
			break
		}
		if t.accounts[i].State != AccountAssigned {
			t.accounts[i].State, t.accounts[i].Node = AccountAssigned, node
			names = append(names, t.accounts[i].Name)
			changed = true
		}
	}
	if changed {
		t.saveErr = t.save()
	}
	return names
}

// Claim implements Master: assign the first free egress to node.
func (t *Table) Claim(node string) (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := range t.accounts {
		if t.accounts[i].State != AccountAssigned {
			t.accounts[i].State, t.accounts[i].Node = AccountAssigned, node
			t.saveErr = t.save()
			return t.accounts[i].Name, true
		}
	}
	return "", false
}

// Release frees an egress (e.g. when its node died), keeping it in the table.
func (t *Table) Release(name string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	i := t.index(name)
	if i < 0 {
		return fmt.Errorf("egress %s: %w", name, ErrUnknownEgress)
	}
	t.accounts[i].State, t.accounts[i].Node = AccountFree, ""
	return t.save()
}

// Accounts returns a copy of the table in order.
func (t *Table) Accounts() []Account {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.accounts)
}

// Account returns one account by name.
func (t *Table) Account(name string) (Account, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if i := t.index(name); i >= 0 {
		return t.accounts[i], true
	}
	return Account{}, false
}

// Err returns the last error saving the table from Assign or Claim (which cannot
// return one), nil if the last save worked.
func (t *Table) Err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.saveErr
}

func (t *Table) index(name string) int {
	return slices.IndexFunc(t.accounts, func(a Account) bool { return a.Name == name })
}

// nextName is e<N> for the smallest N not in use.
func (t *Table) nextName() string {
	for n := 1; ; n++ {
		name := "e" + strconv.Itoa(n)
		if t.index(name) < 0 {
			return name
		}
	}
}

func (t *Table) save() error {
	if t.store == nil {
		return nil
	}
	if err := t.store.Save(slices.Clone(t.accounts)); err != nil {
		return fmt.Errorf("egress account table: save: %w", err)
	}
	return nil
}
