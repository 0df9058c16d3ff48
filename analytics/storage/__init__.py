"""What the programs keep on and read from the local disk and the state store: the state store
over the embedded SQLite file or PostgreSQL (`state_store`) and its tables (`schema`), files
written atomically and a damaged one moved aside (`files`), the organization's TOML files read
into typed structures (`tomlfiles`), where the files shipped beside the library are (`bundle`),
and where a program's Arrow buffers come from (`allocator`).

It imports nothing of ours, and the service layer nothing of it: each stands on its own at the
bottom, one speaking HTTP and the other the disk, and every layer above reads both."""
