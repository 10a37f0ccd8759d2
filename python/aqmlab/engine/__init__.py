"""The Python face of the core: scenarios (`scenario`), one run (`runner`) and its result
(`result`), Parquet (`parquet`), the run store of sweeps (`store`), output folders
(`outdir`), the memory budget (`memory`), the AQMs stepped by hand (`aqm`) and text tables
(`tables`)."""
