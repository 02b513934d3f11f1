package lane

import "pathsfixture/store"

func prepare() { helper() }

func finish() {}

func background() { store.Save(0) }
