"""Mobile bases: occupancy maps, a grid LiDAR, and the IR-SIM driver."""
