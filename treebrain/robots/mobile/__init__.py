"""Mobile bases: occupancy maps, a grid LiDAR, the IR-SIM driver, a base behind ROS 2 topics and
the IR-SIM base as a ROS 2 node."""
