// Package config holds every option of a crawl, with its defaults and its
// validation: Options (what the config file and the flags set, YAML keys in the
// field tags) and its parts, and the options of a distributed crawl's master and
// workers (MasterOptions, WorkerOptions). DefaultOptions gives the documented
// defaults, Options.Validate names the first unusable setting and what is allowed.
//
// It holds settings only; nothing here runs a crawl. The engine reads these types,
// and package engine declares an alias of each (engine.Options is config.Options)
// and re-declares the constants its callers use, so that code outside the engine
// (ui/, bench/, sandbox/, tests) can move to this package at its own pace.
package config
