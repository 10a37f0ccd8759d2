"""`aqmlab evaluate`: RFC 7928's characterisation scenarios for any AQM, in one command
(`suite`: the sections and their criteria; `run`: running them; `metrics`, `ranking`, `card`,
`report`: the report card)."""
