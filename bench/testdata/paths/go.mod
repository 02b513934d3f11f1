module pathsfixture

go 1.26.0
