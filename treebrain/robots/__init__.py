"""Robot drivers: the contract every driver keeps, drivers by type name, and one sub-package per
kind of robot (``arm/``)."""
