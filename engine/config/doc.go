// Package config holds every option of a crawl, with its defaults and its
// validation: Options (what the config file and the flags set, YAML keys in the
// field tags) and its parts, and the options of a distributed crawl's master and
// workers (MasterOptions, WorkerOptions). DefaultOptions gives the documented
// defaults, Options.Validate names the first unusable setting and what is allowed.
//
// It holds settings only; nothing here runs a crawl. The engine and its callers
// (ui/, bench/, tests) name these types here: engine.New takes a config.Options.
package config
